/**
 * The operations of one WebSocket, as the gateway counts them: each from its `subscribe` until
 * graphql-ws has ended it (or it was refused), with the controller of its loads and the stream
 * handed to graphql-ws for it.
 *
 * graphql-ws keeps its own table by id (`ctx.subscriptions`), but a client's `complete` that
 * arrives while the operation is still being admitted deletes the entry, a `subscribe` of the
 * same id then takes its place, and the first stream is never ended: it polls for good (issue
 * 23). So the gateway does not rely on it: an id held here cannot be taken again (the socket is
 * closed with 4409, graphql-ws's "Subscriber for <id> already exists"), a stream produced once
 * its operation was completed or its socket stopped being open is ended at once, and the close
 * of a socket ends every stream and aborts every load it started, whatever graphql-ws holds.
 */

/** One operation of a socket, from its `subscribe` until graphql-ws has ended it. */
export interface Registered {
  readonly id: string;
  /** Aborts the operation's `request.signal`, as a client's disconnect does over HTTP. */
  readonly controller: AbortController;
  /** Set once the client completed the operation or its socket closed: nothing more runs for it. */
  ended: boolean;
  /** The stream handed to graphql-ws, for a subscription. */
  stream?: AsyncIterator<unknown>;
}

export interface OperationRegistry<T extends Registered> {
  /** Operations held: being admitted, or running. */
  readonly size: number;
  /** Whether an operation of this id is being admitted or running. */
  has(id: string): boolean;
  add(operation: T): void;
  /** graphql-ws ended the operation, or it was refused: its place is free. */
  remove(operation: T): void;
  /** The client's `complete`: the operation ends now, whatever stage it is at. */
  complete(id: string): void;
  /** `stream`, kept to be ended with its operation; ended at once when its operation already ended. */
  adopt<S extends AsyncIterator<unknown>>(operation: T, stream: S): S;
  /** The socket closes: every operation ends. */
  endAll(why: string): void;
}

/**
 * A socket's registry. `isOpen` says whether its socket still takes messages; `tally` is told of
 * each operation added (+1) and removed (−1), for the transport's count.
 */
export function createOperationRegistry<T extends Registered>(isOpen: () => boolean, tally: (change: number) => void): OperationRegistry<T> {
  // Every operation, and by id the latest: should two ever share an id, neither is lost.
  const all = new Set<T>();
  const byId = new Map<string, T>();
  return {
    get size() {
      return all.size;
    },
    has: (id) => byId.has(id),
    add(operation) {
      all.add(operation);
      byId.set(operation.id, operation);
      tally(1);
    },
    remove(operation) {
      if (!all.delete(operation)) return;
      if (byId.get(operation.id) === operation) byId.delete(operation.id);
      tally(-1);
    },
    complete(id) {
      const operation = byId.get(id);
      if (operation !== undefined) end(operation, 'the client completed the operation');
    },
    adopt(operation, stream) {
      operation.stream = stream;
      if (operation.ended || !isOpen()) end(operation, 'the operation ended before its stream started');
      return stream;
    },
    endAll(why) {
      for (const operation of all) end(operation, why);
    },
  };
}

// Private: ends the operation's stream (graphql-ws then completes it) and aborts its loads.
function end(operation: Registered, why: string): void {
  operation.ended = true;
  operation.controller.abort(new Error(why));
  const stream = operation.stream;
  operation.stream = undefined;
  // A stream's own failure to end is its source's to report; it has ended for this socket.
  stream?.return?.().catch(() => undefined);
}
