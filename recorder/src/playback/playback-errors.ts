// Why a play request cannot be answered with a stream (mapped to HTTP statuses by http/).

export class PlaybackError extends Error {
  constructor(
    /** no_recordings: nothing recorded here in the window; not_fragmented: the window starts in a progressive MP4. */
    readonly kind: 'no_recordings' | 'not_fragmented',
    message: string,
  ) {
    super(message);
  }
}
