/**
 * The operations of one WebSocket, kept by the gateway since graphql-ws's own table loses one
 * completed while admitted: an id held cannot be taken again (4409), a stream made after its
 * operation ended is ended at once, and a socket's close ends every stream and load.
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

/** A socket's registry; `isOpen`: whether the socket still takes messages; `tally`: told of each add (+1) and remove (−1). */
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
  stream?.return?.().catch(() => undefined);
}
