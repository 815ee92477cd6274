import { EventEmitter } from 'node:events';
import { answerShutdownSignals } from '../shutdown-signals';

describe('answerShutdownSignals (R-OP-2)', () => {
  it('R-OP-2 the graceful stop is the only answer to SIGTERM and SIGINT: a listener set before (the embedded database exit hook) no longer runs', () => {
    const target = new EventEmitter();
    const hook: string[] = [];
    target.on('SIGTERM', () => hook.push('SIGTERM'));
    target.on('SIGINT', () => hook.push('SIGINT'));
    const stopped: string[] = [];
    answerShutdownSignals((signal) => stopped.push(signal), target);
    target.emit('SIGTERM');
    target.emit('SIGTERM');
    target.emit('SIGINT');
    expect({ hook, stopped }).toEqual({ hook: [], stopped: ['SIGTERM', 'SIGINT'] });
  });
});
