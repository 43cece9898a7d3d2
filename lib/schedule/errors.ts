/** An invalid schedule, time zone, duration, frequency or stagger request; the message says what is wrong and what is allowed. */
export class ScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScheduleError';
  }
}
