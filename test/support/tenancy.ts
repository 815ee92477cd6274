/** What a team admin arranges through the API: spaces, their members, the team's feature flags. */
import { ok, type GraphqlTarget } from './graphql';
import { identity, type TestIdentity } from './test-app';

const CREATE_SPACE = `mutation($name: String!) { createSpace(name: $name) { id } }`;
const ADD_MEMBER = `mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id } }`;
const SET_FLAG = `mutation($k: String!, $e: Boolean!) { setFeatureFlag(key: $k, enabled: $e) { key enabled } }`;
export const REMOVE_MEMBER = `mutation($s: ID!, $u: ID!) { removeSpaceMember(spaceId: $s, userId: $u) { id } }`;
export const BUMP = `mutation($s: ID!) { bumpSpaceGeneration(spaceId: $s) { generation } }`;
export const SEAL = `mutation($s: ID!) { sealSpace(spaceId: $s) { status } }`;
export const RETIRE = `mutation($s: ID!) { retireSpace(spaceId: $s) { status } }`;

/** A new ACTIVE space of the admin's team; its id. */
export async function newSpace(t: GraphqlTarget, admin: TestIdentity, name = 'space'): Promise<string> {
  return (await ok<{ createSpace: { id: string } }>(t, CREATE_SPACE, { name }, admin.token)).createSpace.id;
}

export async function addMember(t: GraphqlTarget, admin: TestIdentity, spaceId: string, userId: string): Promise<void> {
  await ok(t, ADD_MEMBER, { s: spaceId, u: userId }, admin.token);
}

/** A new user of the admin's team holding `scopes`, added to each of the spaces. */
export async function newMember(t: GraphqlTarget, admin: TestIdentity, spaceIds: string[], scopes: string[]): Promise<TestIdentity> {
  const member = await identity(scopes, { teamId: admin.teamId });
  for (const spaceId of spaceIds) await addMember(t, admin, spaceId, member.userId);
  return member;
}

export async function setFlag(t: GraphqlTarget, admin: TestIdentity, key: string, enabled: boolean): Promise<void> {
  await ok(t, SET_FLAG, { k: key, e: enabled }, admin.token);
}
