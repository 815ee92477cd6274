import { AppError } from '../../common/errors/app-error';
import { refusalError } from '../batch-ownership.checks';

/** A database error as pg hands it over. */
function refused(code: string, detail: unknown): Error & { code: string; detail: string } {
  return Object.assign(new Error('refused'), { code, detail: JSON.stringify(detail) });
}

describe('refusalError (the write function names what it refused)', () => {
  const conversations = [{ id: 'c1', spaceId: 's1', index: 2 }];
  const messages = [{ id: 'm1', conversationId: 'c1', index: 3 }];
  const rows = [{ toolUseId: 'a' }, { toolUseId: 'b' }, { toolUseId: 'b' }];
  const of = (error: unknown) => {
    const mapped = refusalError(error, conversations, messages, rows, 'input');
    return mapped instanceof AppError ? { code: mapped.code, message: mapped.message, field: mapped.details.field } : mapped;
  };

  it("R-TR-4 R-TN-5 a conversation that is not the user's reads as missing", () => {
    expect(of(refused('RL001', { kind: 'conversation', id: 'c1', actual: null }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it("R-TR-4 the user's conversation in another space names the item's spaceId", () => {
    expect(of(refused('RL001', { kind: 'conversation', id: 'c1', actual: 's9' }))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'Conversation c1 belongs to space s9, not s1.',
      field: 'input.2.spaceId',
    });
  });

  it("R-TR-4 a message of another conversation names the item's messageId; another user's reads as missing", () => {
    expect(of(refused('RL001', { kind: 'message', id: 'm1', actual: 'c7' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.3.messageId',
    });
    expect(of(refused('RL001', { kind: 'message', id: 'm1', actual: null }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('R-TR-2 a repeat outside the allowed spaces is a CONFLICT on its first item', () => {
    expect(of(refused('RL002', { tool_use_id: 'b' }))).toMatchObject({ code: 'CONFLICT', field: 'input.1.toolUseId' });
  });

  it('R-TR-4 any other error passes through as it is', () => {
    const other = Object.assign(new Error('deadlock'), { code: '40P01' });
    expect(refusalError(other, conversations, messages, rows, 'input')).toBe(other);
  });
});
