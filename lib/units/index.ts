export { UnitError } from './errors';
export { DURATION_GRAMMAR, DURATION_PATTERN, durationProblem, formatDuration, parseDuration } from './duration';
export { SIZE_GRAMMAR, SIZE_PATTERN, parseSize, sizeProblem } from './size';
