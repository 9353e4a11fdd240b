/** The response cache's answers as the request object holds them: served, stored, or to store. */
/** What the request object reads of a result: its errors. */
export interface ResultErrors {
  errors?: readonly unknown[] | undefined;
}

/** An answer as stored: its bytes, media type, ETag and times. */
export interface StoredResponse extends StoredAnswerTimes {
  body: Uint8Array;
  contentType: string;
  etag: string;
  /** What it was built from: its `Surrogate-Key`, and what a purge finds it by. */
  tags?: readonly string[];
  /** Its compressed bytes made so far, by coding; shared by the copies of an entry. */
  encodings?: Map<string, Uint8Array>;
}

/** When an answer was stored and when its data stops being fresh, in ms of this process's clock. */
export interface StoredAnswerTimes {
  storedAt: number;
  expiresAt: number;
}

/** Stores an answer just made, if it may be stored; its ETag when it was. */
export type StoreAnswer = (status: number, body: ArrayBuffer | Uint8Array, contentType: string, result?: ResultErrors) => string | undefined;

/** The stored answer `request` was served, or the one its own answer was just stored as. */
export function storedAnswerOf(request: { served: StoredResponse | undefined; made: StoredResponse | undefined }): StoredResponse | undefined {
  return request.served ?? request.made;
}
