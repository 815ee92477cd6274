/**
 * The statement every authenticated request runs (ActorRepository.findByUserId; the function is in
 * the migrations, and makes the request's tenant settings from the token's user and team): the
 * floor's raw side, and the bare stack's one SELECT.
 */
export const ACTOR_STATEMENT = `select space_id, generation from actor_spaces($1::uuid, $2::uuid, to_timestamp($3))`;
