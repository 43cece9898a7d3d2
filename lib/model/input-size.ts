/**
 * The size limit of every input, apart from the YAML parser: the CLI refuses a file over it from its size
 * on disk, before reading it and before loading the parser (`lib/cli/inputs.ts`).
 */

/**
 * The largest input file, in bytes: 1.5 MiB, etcd's default request limit (`--max-request-bytes`
 * 1572864), which every object the API server stores fits: an operator object that `convert` reads,
 * and every object a policy renders (each carries the policy's labels and annotations). A policy of
 * 10,000 Vitess shards is about 120 kB. A file this size is parsed and validated in about a second
 * (`npm run bench:parse`).
 */
export const MAX_INPUT_BYTES = 1572864;

/** The problem with `text`'s size, or undefined when it is within MAX_INPUT_BYTES. */
export function inputSizeProblem(text: string): string | undefined {
  if (text.length * 3 <= MAX_INPUT_BYTES) return undefined; // at most 3 UTF-8 bytes per UTF-16 unit
  return byteSizeProblem(Buffer.byteLength(text, 'utf8'));
}

/** The problem with an input of `bytes` bytes, or undefined when it is within MAX_INPUT_BYTES. */
export function byteSizeProblem(bytes: number): string | undefined {
  if (bytes <= MAX_INPUT_BYTES) return undefined;
  return `the input is ${bytes} bytes (${(bytes / 1024 / 1024).toFixed(1)} MiB); at most ${MAX_INPUT_BYTES} (1.5 MiB, etcd's request limit, which every Kubernetes object fits) are read: split the input into several files`;
}
