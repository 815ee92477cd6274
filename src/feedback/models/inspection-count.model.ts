import { Field, Int, ObjectType } from '@nestjs/graphql';
import { INSPECTION_COUNT_CAP_TEXT } from '../inspection-count';

/**
 * The bounded count an inspection connection carries (R-FB-8). Run only when the query selects it,
 * so it is absent (never served) otherwise.
 */
@ObjectType({ isAbstract: true })
export abstract class InspectionCountFields {
  @Field(() => Int, {
    description: `How many events match the filter, counted up to INSPECTION_COUNT_CAP (${INSPECTION_COUNT_CAP_TEXT}); past it, ${INSPECTION_COUNT_CAP_TEXT}. Counted only when selected.`,
  })
  totalCount?: number;

  @Field({
    description: `False when more than INSPECTION_COUNT_CAP (${INSPECTION_COUNT_CAP_TEXT}) events match and totalCount stopped there.`,
  })
  totalCountIsExact?: boolean;
}
