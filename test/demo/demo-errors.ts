/** Something the demo could not do; the message says what, and what to look at. */
export class DemoError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DemoError';
  }
}
