import fc from 'fast-check';
import { buildFeedbackCase, FEEDBACK_CASE_SCHEMA, type FeedbackExportRecord } from '../feedback-case';
import { DIGITS_MASK, EMAIL_MASK, maskDigitRuns, maskEmails, maskTokens, redactNullable, redactText, TOKEN_MASK } from '../redact';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('redaction of exported comments', () => {
  describe('e-mail addresses', () => {
    it.each([
      ['mail alice@example.com please', `mail ${EMAIL_MASK} please`],
      ['<bob.smith+tag@mail.example.co.uk>', `<${EMAIL_MASK}>`],
      ['two: a_b@x.io, c-d@y.org.', `two: ${EMAIL_MASK}, ${EMAIL_MASK}.`],
      ['unicode: jürgen@beispiel.de', `unicode: ${EMAIL_MASK}`],
    ])('R-FB-10 masks %j', (input, expected) => {
      expect(maskEmails(input)).toBe(expected);
      expect(redactText(input)).toBe(expected);
    });

    it('R-FB-10 leaves an @-mention and a bare domain alone', () => {
      expect(redactText('ask @carol about example.com')).toBe('ask @carol about example.com');
    });

    it('R-FB-10 masks an address whose local part is all digits as one address, not as digits', () => {
      expect(redactText('reach 123456789@example.com')).toBe(`reach ${EMAIL_MASK}`);
    });
  });

  describe('long digit runs', () => {
    it.each([
      ['call 5551234567 now', `call ${DIGITS_MASK} now`],
      ['phone +1 555-123-4567.', `phone +${DIGITS_MASK}.`],
      ['card 4111 1111 1111 1111 expired', `card ${DIGITS_MASK} expired`],
      ['card 4111-1111-1111-1111', `card ${DIGITS_MASK}`],
      ['account 123456', `account ${DIGITS_MASK}`],
      ['order #98765432, then 12 more', `order #${DIGITS_MASK}, then 12 more`],
    ])('R-FB-10 masks %j', (input, expected) => {
      expect(maskDigitRuns(input)).toBe(expected);
      expect(redactText(input)).toBe(expected);
    });

    it.each([
      'short numbers stay: 12345, 2026, rank 3, 42 items',
      'a space or dash twice breaks a run: 123  456 and 123--456',
      'snapshot as of 2026-05-12 was stale',
      'between 2026-05-12 2026-05-13 and 2026-05-14T09:30:00Z',
    ])('R-FB-10 keeps %j (fewer than 6 digits, or an ISO date)', (input) => {
      expect(redactText(input)).toBe(input);
    });

    it('R-FB-10 a date-shaped run that is not a calendar date, or runs on, is masked', () => {
      expect(redactText('id 1234-56-78')).toBe(`id ${DIGITS_MASK}`);
      expect(redactText('id 2026-05-1234')).toBe(`id ${DIGITS_MASK}`);
    });
  });

  describe('tokens', () => {
    it.each([
      [`jwt ${JWT} leaked`, `jwt ${TOKEN_MASK} leaked`],
      ['key sk-proj-AbCdEf0123456789GhIjKl in the log', `key ${TOKEN_MASK} in the log`],
      ['key sk-ant-api03-abcdefghijklmnopqrstuvwx', `key ${TOKEN_MASK}`],
      ['sk_live_51HabcdEFGhijkLMNop', TOKEN_MASK],
      ['gh token ghp_1234567890abcdefghijABCDEFGHIJ012345', `gh token ${TOKEN_MASK}`],
      ['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', TOKEN_MASK],
      ['slack xoxb-123456789012-abcdefghij', `slack ${TOKEN_MASK}`],
      ['aws AKIAIOSFODNN7EXAMPLE', `aws ${TOKEN_MASK}`],
      ['sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', `sha ${TOKEN_MASK}`],
      ['blob dGhpcyBpcyBhIHNlY3JldCBrZXkgdmFsdWUgMTIzNDU2Nzg5MA== end', `blob ${TOKEN_MASK} end`],
    ])('R-FB-10 masks %j', (input, expected) => {
      expect(maskTokens(input)).toBe(expected);
      expect(redactText(input)).toBe(expected);
    });

    it('R-FB-10 masks a Bearer credential and keeps the word', () => {
      expect(redactText('header was Authorization: Bearer abc.DEF-123_456~xyz/789+q= ok')).toBe(
        `header was Authorization: Bearer ${TOKEN_MASK} ok`,
      );
      expect(redactText(`bearer ${JWT}`)).toBe(`bearer ${TOKEN_MASK}`);
    });

    it.each([
      'the Bearer of bad news',
      'sk-learn and ghp_short are not secrets',
      'a long lower-case identifier: message_tool_results_conversation_user_recency',
      'a path: src/feedback/export/feedback-export.repository.ts',
      'a version v1.2.3 and host api.example.com',
    ])('R-FB-10 keeps %j', (input) => {
      expect(redactText(input)).toBe(input);
    });
  });

  it('R-FB-10 one comment with everything: each kind gets its mask, the prose stays', () => {
    const comment = `Recall returned dana@corp.example's ticket 4111 1111 1111 1111 and the key ghp_abcdefghijklmnopqrstuvwxyz0123456789 from 2026-05-12.`;
    expect(redactText(comment)).toBe(`Recall returned ${EMAIL_MASK}'s ticket ${DIGITS_MASK} and the key ${TOKEN_MASK} from 2026-05-12.`);
  });

  it('R-FB-10 redactNullable passes null and undefined through as null', () => {
    expect(redactNullable(null)).toBeNull();
    expect(redactNullable(undefined)).toBeNull();
    expect(redactNullable('x@y.zz')).toBe(EMAIL_MASK);
  });

  it('R-FB-10 redaction is idempotent and leaves no e-mail address or 6-digit run behind (property)', () => {
    const pieces = fc.constantFrom(
      ' ',
      '-',
      'the ',
      'stale ',
      'ada@example.com',
      '5551234567',
      '4111 1111 1111 1111',
      'ghp_abcdefghijklmnopqrstuvwxyz012345',
      JWT,
      '2026-05-12',
      '12',
      '@',
      '.',
      'Bearer ',
      'eyJ',
      '0123456789abcdef0123456789abcdef',
      'x',
      '_',
      'sk-',
      'ghp_',
      'AKIA',
      '[',
      ']',
      'abcdefghijklmnopqrstuvwxyz',
      'ABCDEFGHIJKLMNOP',
      '0000',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 8 })), { maxLength: 12 }), (parts) => {
        const once = redactText(parts.join(''));
        expect(redactText(once)).toBe(once);
        expect(once).not.toMatch(/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/u);
        // Any 6+ digit run left is inside an ISO date (which holds at most 4 digits in a row).
        expect(once).not.toMatch(/\d{6}/u);
      }),
      { numRuns: 2000, seed: 1010 },
    );
  });
});

describe('feedback case', () => {
  const record = (overrides: Partial<FeedbackExportRecord> = {}): FeedbackExportRecord => ({
    id: 'fb_01JABCDEFGHJKMNPQRSTVWXYZ0',
    recallEventId: 'rec_01JABCDEFGHJKMNPQRSTVWXYZ0',
    teamId: '11111111-1111-4111-8111-111111111111',
    profileId: '22222222-2222-4222-8222-222222222222',
    actorId: '33333333-3333-4333-8333-333333333333',
    spaceId: '44444444-4444-4444-8444-444444444444',
    spaceGeneration: 2,
    queryFingerprint: 'a'.repeat(64),
    contractVersion: 'graph-retriever.v2',
    rankingVersion: 'hybrid-rrf-3',
    fusionMode: 'rrf',
    searchFreshness: 'vector_pending',
    degradedBranches: ['vector'],
    returnedRefs: [{ type: 'RELATIONSHIP', id: 'r_1', rank: 1 }] as FeedbackExportRecord['returnedRefs'],
    toolNames: [],
    used: true,
    answerSupported: false,
    quality: 'LOW',
    missingContext: true,
    irrelevant: true,
    feedbackComment: 'mailed eve@example.org about 5551234567',
    irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_1' }],
    hypothesisFeedback: [
      { hypothesisId: 'hyp_1', contradicted: true, quality: 'LOW' as never, feedbackComment: 'token sk-abcdefghijklmnop0123' },
    ],
    clientFeedbackId: 'client-1',
    createdAt: new Date('2026-05-12T10:00:00.123Z'),
    createdKey: '2026-05-12T10:00:00.123456Z',
    recallQueryText: null,
    ...overrides,
  });

  it('R-FB-10 a case is versioned, redacts every comment, carries no user id (neither the recall’s nor the submitter’s), and has no query text without opt-in', () => {
    const built = buildFeedbackCase(record());
    expect(built).toEqual({
      schema: FEEDBACK_CASE_SCHEMA,
      caseId: 'fb_01JABCDEFGHJKMNPQRSTVWXYZ0',
      recallEventId: 'rec_01JABCDEFGHJKMNPQRSTVWXYZ0',
      teamId: '11111111-1111-4111-8111-111111111111',
      spaceId: '44444444-4444-4444-8444-444444444444',
      spaceGeneration: 2,
      createdAt: '2026-05-12T10:00:00.123Z',
      contractVersion: 'graph-retriever.v2',
      rankingVersion: 'hybrid-rrf-3',
      fusionMode: 'rrf',
      searchFreshness: 'vector_pending',
      degradedBranches: ['vector'],
      queryFingerprint: 'a'.repeat(64),
      query: null,
      returnedRefs: [{ type: 'RELATIONSHIP', id: 'r_1', rank: 1 }],
      judgment: {
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_1', rank: null }],
        hypothesisFeedback: [
          { hypothesisId: 'hyp_1', used: null, quality: 'LOW', contradicted: true, feedbackComment: `token ${TOKEN_MASK}` },
        ],
      },
      comment: `mailed ${EMAIL_MASK} about ${DIGITS_MASK}`,
    });
    const line = JSON.stringify(built);
    expect(line).not.toContain('22222222-2222');
    expect(line).not.toContain('33333333-3333');
    expect(line).not.toContain('client-1');
  });

  it("R-FB-10 the stored query text is the case's query only when the recall event kept it; cleared comments stay null", () => {
    expect(buildFeedbackCase(record({ recallQueryText: 'why does save do nothing' })).query).toBe('why does save do nothing');
    const cleared = buildFeedbackCase(
      record({ feedbackComment: null, hypothesisFeedback: [{ hypothesisId: 'h', feedbackComment: null }] }),
    );
    expect(cleared.comment).toBeNull();
    expect(cleared.judgment.hypothesisFeedback[0].feedbackComment).toBeNull();
  });
});
