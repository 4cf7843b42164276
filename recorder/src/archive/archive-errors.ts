// Why a listing could not be answered: never reported as an empty archive.

/** A query parameter that cannot be used; `parameter` names it. */
export class ListingQueryError extends Error {
  constructor(
    readonly kind: 'invalid_parameter' | 'invalid_window',
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/** The database holding the archive index cannot be read (503). */
export class ArchiveIndexUnavailableError extends Error {}

/** The archive on disk cannot be read (500). */
export class ArchiveDiskError extends Error {}
