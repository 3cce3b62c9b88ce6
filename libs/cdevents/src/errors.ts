/** Why the receiver refused a request; `status` is the HTTP status it answers with. */
export class CdeventsRequestError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 413 | 415 | 422,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CdeventsRequestError';
  }
}

/** A sink did not take an event: refused it (`status`), or could not be reached in time. */
export class SinkDeliveryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SinkDeliveryError';
  }
}
