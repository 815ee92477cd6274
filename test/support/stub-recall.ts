import type { SpaceMember } from './fixtures';
import { ok } from './graphql';
import type { TestApp } from './test-app';

const RECALL = `query($m: String!, $f: RecallFormat, $o: Int) { recallToolResult(memId: $m, format: $f, offset: $o) }`;
const CONTINUE_MARKER =
  /\n\[… more: continue with recall_tool_result\(mem_id='mem_[a-z2-7]{16}'[^\n]*, offset=(\d+)[^\n]*\); chars \d+–\d+ of ≈?\d+ shown\]$/;

/** Reading a stub back, as a model does, and counting what compaction stored. */
export function stubRecall(app: () => TestApp) {
  const recall = async (who: SpaceMember, memId: string, variables: { f?: string; o?: number }) =>
    (await ok<{ recallToolResult: string }>(app(), RECALL, { m: memId, ...variables }, who.token)).recallToolResult;
  return {
    recall,
    rowsOf: async (userId: string) =>
      Number((await app().sql.query('select count(*) from message_tool_results where user_id = $1', [userId])).rows[0].count),
    /** FULL recall followed window by window to the end: the stored payload as the model gets it back. */
    fullPayload: async (who: SpaceMember, memId: string): Promise<string> => {
      let answer = await recall(who, memId, { f: 'FULL' });
      let rebuilt = '';
      for (let calls = 0; calls < 200; calls++) {
        const marker = CONTINUE_MARKER.exec(answer);
        rebuilt += marker ? answer.slice(0, marker.index) : answer;
        if (!marker) return rebuilt;
        answer = await recall(who, memId, { o: Number(marker[1]) });
      }
      throw new Error('FULL recall did not end');
    },
  };
}
