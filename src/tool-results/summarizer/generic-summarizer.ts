import { formatUtcDate, parseDateLike } from './date-values';
import { boundLine, ELLIPSIS, isRecord } from '../../common/text/text-bounds';

const GENERIC_MAX_KEYS = 5;
const TEXT_MAX_WORDS = 12;
const KEY_MAX_CHARS = 24;
// Caps the work on huge or deeply nested outputs; the scan is iterative, never recursive.
const DATE_SCAN_MAX_NODES = 10_000;
const TEXT_WINDOW_CHARS = 600;

/**
 * The summary of an output no rule knows (R-RC-3). Text: its first words. JSON: the array
 * length or the top-level keys (array-valued keys with their length), then the newest
 * date-like value found anywhere. The caller bounds the result to one line.
 */
export function summarizeGeneric(output: unknown): string {
  if (typeof output === 'string') return summarizeText(output);
  if (typeof output === 'number' || typeof output === 'boolean' || typeof output === 'bigint') {
    return String(output);
  }
  if (typeof output !== 'object' || output === null) return 'no data';
  const sections = [Array.isArray(output) ? countItems(output.length) : describeKeys(output)];
  const newest = newestDate(output);
  if (newest !== null) sections.push(`newest ${formatUtcDate(newest)}`);
  return sections.join('; ');
}

export function summarizeText(text: string): string {
  const window = text.length > TEXT_WINDOW_CHARS ? text.slice(0, TEXT_WINDOW_CHARS) : text;
  const words = window.split(/\s+/).filter((word) => word.length > 0);
  if (words.length === 0) return text.length === 0 ? 'empty text' : 'blank text';
  const shown = words.slice(0, TEXT_MAX_WORDS).join(' ');
  const elided = words.length > TEXT_MAX_WORDS || window.length < text.length;
  return elided ? shown + ELLIPSIS : shown;
}

function countItems(length: number): string {
  return length === 1 ? '1 item' : `${length} items`;
}

function describeKeys(node: object): string {
  if (!isRecord(node)) return 'object';
  const keys = Object.keys(node);
  if (keys.length === 0) return 'empty object';
  const shown = keys.slice(0, GENERIC_MAX_KEYS).map((key) => {
    const name = boundLine(key, KEY_MAX_CHARS) || '""';
    const value = node[key];
    return Array.isArray(value) ? `${name}[${value.length}]` : name;
  });
  if (keys.length > GENERIC_MAX_KEYS) shown.push(ELLIPSIS);
  return `${keys.length === 1 ? '1 key' : `${keys.length} keys`}: ${shown.join(', ')}`;
}

// One open container of the scan: children are read lazily, one per step.
type ScanFrame = { key: string | undefined; index: number; children: readonly unknown[]; keys?: readonly string[] };

/** Depth-first, in document order, over at most DATE_SCAN_MAX_NODES values. */
function newestDate(root: object): number | null {
  let newest: number | null = null;
  let budget = DATE_SCAN_MAX_NODES;
  const frames: ScanFrame[] = [];
  const visit = (value: unknown, key: string | undefined): void => {
    budget -= 1;
    const ms = parseDateLike(value, key);
    if (ms !== null && (newest === null || ms > newest)) newest = ms;
    // Elements inherit the array's key, so `timestamps: [1715000000]` still reads as dates.
    if (Array.isArray(value)) frames.push({ key, index: 0, children: value });
    else if (isRecord(value)) {
      const keys = Object.keys(value);
      frames.push({ key, index: 0, keys, children: keys.map((k) => value[k]) });
    }
  };
  visit(root, undefined);
  while (budget > 0 && frames.length > 0) {
    const frame = frames[frames.length - 1];
    if (frame.index >= frame.children.length) {
      frames.pop();
      continue;
    }
    const i = frame.index;
    frame.index += 1;
    visit(frame.children[i], frame.keys ? frame.keys[i] : frame.key);
  }
  return newest;
}
