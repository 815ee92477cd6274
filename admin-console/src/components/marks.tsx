import type { FeedbackQuality } from '../../../clients/typescript/src';

interface Judged {
  quality?: FeedbackQuality | null;
  used: boolean;
  answerSupported?: boolean | null;
  missingContext?: boolean | null;
  irrelevant?: boolean | null;
}

/** The judgment at a glance: quality, used, answer supported, and the two complaints when made. */
export function Marks({ event }: { event: Judged }) {
  return (
    <span class="marks">
      <span class={`mark quality-${(event.quality ?? 'none').toLowerCase()}`} title="quality">
        {event.quality ?? 'no quality'}
      </span>
      <span class={`mark ${event.used ? 'yes' : 'no'}`} title="used">
        {event.used ? 'used' : 'not used'}
      </span>
      <span class={`mark ${event.answerSupported ? 'yes' : 'no'}`} title="answer supported">
        {event.answerSupported === true ? 'supported' : event.answerSupported === false ? 'unsupported' : 'support –'}
      </span>
      {event.missingContext === true && <span class="mark no">missing context</span>}
      {event.irrelevant === true && <span class="mark no">irrelevant</span>}
    </span>
  );
}
