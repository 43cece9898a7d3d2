/** A value that is not a valid duration or size; the message says what is wrong and what is allowed. */
export class UnitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnitError';
  }
}
