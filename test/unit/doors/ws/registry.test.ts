/**
 * A socket's operation registry on its own: which streams it ends, and when.
 */
import { describe, expect, it } from 'vitest';
import { createOperationRegistry, type Registered } from '../../../../src/doors/ws/registry.js';

/** A stream that counts its `return()` calls. */
function stream(): AsyncIterator<unknown> & { returned: number } {
  const it = {
    returned: 0,
    next: async () => ({ done: false, value: 1 }),
    return: async () => {
      it.returned += 1;
      return { done: true as const, value: undefined };
    },
  };
  return it;
}

const operation = (id: string): Registered => ({ id, controller: new AbortController(), ended: false });

describe('the WebSocket operation registry', () => {
  it('ends at once a stream whose operation the client completed while it was admitted', () => {
    const registry = createOperationRegistry(() => true, () => {});
    const pending = operation('a');
    registry.add(pending);
    registry.complete('a');
    expect(pending.controller.signal.aborted).toBe(true);
    const late = stream();
    expect(registry.adopt(pending, late)).toBe(late);
    expect(late.returned).toBe(1);
  });

  it('ends at once a stream produced after its socket stopped being open', () => {
    const registry = createOperationRegistry(() => false, () => {});
    const running = operation('a');
    registry.add(running);
    const late = stream();
    registry.adopt(running, late);
    expect(late.returned).toBe(1);
  });

  it('ends every stream and aborts every operation when the socket closes, and counts each place taken and freed', () => {
    let held = 0;
    const registry = createOperationRegistry(() => true, (change) => (held += change));
    const [a, b, c] = ['a', 'b', 'c'].map(operation);
    const streams = [stream(), stream()];
    for (const each of [a!, b!, c!]) registry.add(each);
    registry.adopt(a!, streams[0]!);
    registry.adopt(b!, streams[1]!);
    expect(streams.map((each) => each.returned)).toEqual([0, 0]);
    registry.endAll('the client disconnected');
    expect(streams.map((each) => each.returned)).toEqual([1, 1]);
    expect([a, b, c].map((each) => each!.controller.signal.aborted)).toEqual([true, true, true]);
    expect(held).toBe(3);
    for (const each of [a!, b!, c!, a!]) registry.remove(each);
    expect(held).toBe(0);
    expect(registry.size).toBe(0);
  });

  it('holds two operations of one id apart: ending the socket ends both, and each frees its own place', () => {
    const registry = createOperationRegistry(() => true, () => {});
    const [first, second] = [operation('a'), operation('a')];
    const streams = [stream(), stream()];
    registry.add(first!);
    registry.adopt(first!, streams[0]!);
    registry.add(second!);
    registry.adopt(second!, streams[1]!);
    expect(registry.size).toBe(2);
    registry.endAll('the client disconnected');
    expect(streams.map((each) => each.returned)).toEqual([1, 1]);
    registry.remove(second!);
    expect(registry.has('a')).toBe(false);
    registry.remove(first!);
    expect(registry.size).toBe(0);
  });
});
