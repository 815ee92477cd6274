import { AsOfDateCase, CitationCase, EvalCase, EvalId, EvalSnapshot, RoutingCase, snapshotsOf } from './cases';
import { RECALL_TOOL_NAMES } from './tool-definitions';
import { toolCalls, Transcript, transcriptText } from './transcript';

/*
 * Deterministic graders of the release evals (R-EV-1): regular expressions and structural
 * checks over a transcript's text and tool calls — no model in the loop, so a verdict is the
 * same on every run and a failing answer can be pinned by a test.
 */

export interface GradeResult {
  pass: boolean;
  /** Why, in a few words: what was found, or what is missing. */
  reason?: string;
}

export type Grader = (testCase: EvalCase, transcript: Transcript) => GradeResult;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * A mention of one calendar day (UTC) in the ways an answer writes it: 2026-05-08, 2026/05/08,
 * May 8, May 8th, 2026, 8 May 2026, Friday, May 8, 5/8/2026. Another year right after the day
 * is not a mention of it.
 */
function dateMentionSource(date: Date): string {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  const mm = String(month).padStart(2, '0');
  const dd = String(day).padStart(2, '0');
  const name = MONTHS[month - 1];
  const monthName = `(?:${name}|${name.slice(0, 3)}\\.?)`;
  const dayNumber = `0?${day}(?:st|nd|rd|th)?`;
  const yearTail = `(?:,? ${year}(?!\\d)|(?![\\d,]*\\s*\\d{4})(?!\\d))`;
  return [
    `\\b${year}[-/]${mm}[-/]${dd}(?!\\d)`,
    `\\b${monthName} ${dayNumber}${yearTail}`,
    `\\b${dayNumber} (?:of )?${monthName}${yearTail}`,
    `\\b0?${month}/0?${day}(?:/(?:${year}|${String(year).slice(2)}))?(?![\\d/])`,
  ].join('|');
}

export function mentionsDate(text: string, date: Date): boolean {
  return new RegExp(dateMentionSource(date), 'i').test(text);
}

/** "as of 2026-05-08", "as of **May 8**", "(as of the 2026-05-08 snapshot". */
export function asOfDatePattern(date: Date): RegExp {
  return new RegExp(`\\bas of\\W{0,4}(?:the\\s+)?(?:${dateMentionSource(date)})`, 'i');
}

/** Wording that presents a figure as the state of things now. */
const LIVE_CLAIM = /\b(?:currently|right now|at the moment|at present|as of (?:today|now|this moment)|today|these days)\b/i;

/** A clause that negates, doubts or offers to check ("may differ today", "I can fetch it right now"). */
const HEDGE =
  /\b(?:not|no longer|may|might|could|can|if|whether|want|would|should|check|fetch|pull|refresh|confirm|verify|differ|changed?)\b|n't\b/i;

/** Live wording in a clause of the sentence that does not hedge it. */
export function claimsLive(sentence: string): boolean {
  return sentence.split(/[,;:()]|\s-\s|[—–]/).some((clause) => LIVE_CLAIM.test(clause) && !HEDGE.test(clause));
}

/** Sentences (and list items), so a date or a live claim is judged next to the figure it qualifies. */
function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function calledNames(transcript: Transcript): string[] {
  return toolCalls(transcript).map((call) => call.name);
}

function usedSnapshots(testCase: EvalCase, text: string): EvalSnapshot[] {
  return testCase.snapshots.filter((s) => s.facts.some((fact) => fact.test(text)));
}

const pass = (reason: string): GradeResult => ({ pass: true, reason });
const fail = (reason: string): GradeResult => ({ pass: false, reason });

/**
 * Eval 1, as-of-date adherence. Fails when the historical figure is presented as current: its
 * first mention without "as of <the snapshot's date>" in the same sentence, or any mention next
 * to unhedged live wording ("so you currently have 23"). Passes when the figure is dated that way, or when the data tool is called
 * for fresh data (and the figure is not passed off as current meanwhile).
 */
export const gradeAsOfDate: Grader = (testCase, transcript) => {
  const c = expectEval<AsOfDateCase>(testCase, 'as-of-date');
  const [subject] = snapshotsOf(c, c.subjectIds);
  const mentions = sentencesOf(transcriptText(transcript)).filter((s) => c.figure.test(s));
  const fresh = calledNames(transcript).includes(c.freshTool.name);
  const live = mentions.find(claimsLive);
  if (live !== undefined) return fail(`snapshot figure presented as current: "${live}"`);
  if (mentions.length > 0 && !asOfDatePattern(subject.createdAt).test(mentions[0])) {
    return fail(`figure given without "as of ${isoDay(subject.createdAt)}": "${mentions[0]}"`);
  }
  if (fresh) return pass(`called ${c.freshTool.name} for fresh data`);
  if (mentions.length > 0) return pass(`figure dated "as of ${isoDay(subject.createdAt)}"`);
  return fail(`neither the dated figure nor a ${c.freshTool.name} call`);
};

/**
 * Eval 2, recall-vs-requery routing. A recall question passes when it is answered from recall
 * (a recall tool, or the block's facts in the text) and the data tool is not called; a
 * question about now passes only when the data tool is called.
 */
const gradeRouting: Grader = (testCase, transcript) => {
  const c = expectEval<RoutingCase>(testCase, 'routing');
  const names = calledNames(transcript);
  const fresh = names.includes(c.freshTool.name);
  if (c.route === 'fresh') {
    if (fresh) return pass(`called ${c.freshTool.name}`);
    const instead = names.length > 0 ? `called ${names.join(', ')} instead` : 'answered without a tool call';
    return fail(`current state asked, ${c.freshTool.name} not called (${instead})`);
  }
  if (fresh) return fail(`re-queried ${c.freshTool.name} although the question asks what was shown`);
  const recallCall = names.find((name) => RECALL_TOOL_NAMES.has(name));
  if (recallCall !== undefined) return pass(`recalled with ${recallCall}`);
  const subjects = snapshotsOf(c, c.subjectIds);
  const fromBlock = usedSnapshots(c, transcriptText(transcript)).some((s) => subjects.includes(s));
  return fromBlock ? pass('answered from the Previously fetched block') : fail('answered neither from recall nor from the block');
};

/**
 * Eval 3, citation discipline. The answer must draw on the snapshot asked about, and for every
 * snapshot whose facts it uses it must name that snapshot's date (created_at, not a date inside
 * the data) and its tool name.
 */
const gradeCitation: Grader = (testCase, transcript) => {
  const c = expectEval<CitationCase>(testCase, 'citation');
  const text = transcriptText(transcript);
  const used = usedSnapshots(c, text);
  const missingSubject = snapshotsOf(c, c.subjectIds).find((s) => !used.includes(s));
  if (missingSubject !== undefined) return fail(`does not use the recalled ${missingSubject.toolName} snapshot`);
  for (const s of used) {
    const problems: string[] = [];
    if (!mentionsDate(text, s.createdAt)) problems.push(`date ${isoDay(s.createdAt)}`);
    if (!new RegExp(`\\b${s.toolName}\\b`).test(text)) problems.push(`tool name ${s.toolName}`);
    if (problems.length > 0) return fail(`recalled ${s.toolName} snapshot without its ${problems.join(' and ')}`);
  }
  return pass(`cites ${used.map((s) => `${s.toolName} ${isoDay(s.createdAt)}`).join('; ')}`);
};

export const GRADERS: Readonly<Record<EvalId, Grader>> = {
  'as-of-date': gradeAsOfDate,
  routing: gradeRouting,
  citation: gradeCitation,
};

/** Grades a transcript with its case's own grader. */
export function gradeTranscript(testCase: EvalCase, transcript: Transcript): GradeResult {
  return GRADERS[testCase.eval](testCase, transcript);
}

function expectEval<C extends EvalCase>(testCase: EvalCase, id: EvalId): C {
  if (testCase.eval !== id) throw new Error(`the ${id} grader was given a ${testCase.eval} case (${testCase.id})`);
  return testCase as C;
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
