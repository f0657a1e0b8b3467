// Typed errors carry their exit code; the CLI catches them in one place (src/cli.ts).

export const EXIT_OK = 0;
export const EXIT_THRESHOLD = 1;
export const EXIT_USAGE = 2;
export const EXIT_NATIVE = 3;

export class XhdError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/**
 * A value that does not parse (an option's, a manifest field's, a pose's): the caller adds where it came from,
 * the command line as an error naming the option (cli/option-parsers.ts optionParser). Not an XhdError: it
 * never reaches the top by itself.
 */
export class ValueSyntaxError extends Error {}

/** Bad command-line usage: unknown option, wrong value. Exit 2. */
export class UsageError extends XhdError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

/** Where in a file a problem was found: a 1-based line for text, a byte offset for binary. */
export type FileLocation = { line: number } | { byte: number } | Record<string, never>;

/** A file that cannot be read or parsed. Exit 2. The message names the file and the place. */
export class InputError extends XhdError {
  readonly file: string;
  constructor(file: string, where: FileLocation, detail: string) {
    super(`${file}${formatLocation(where)}: ${detail}`, EXIT_USAGE);
    this.file = file;
  }
}

/** An output file that cannot be written (missing directory, no permission, full disk). Exit 2. */
export class OutputError extends XhdError {
  readonly file: string;
  constructor(file: string, detail: string) {
    super(`${file}: cannot write: ${detail}`, EXIT_USAGE);
    this.file = file;
  }
}

/** The native library is missing, broken, or reported an internal failure. Exit 3. */
export class NativeError extends XhdError {
  constructor(message: string) {
    super(message, EXIT_NATIVE);
  }
}

/**
 * The caller aborted a running computation. Exit 130, as for SIGINT, or 143 when the abort's reason is
 * 'SIGTERM' (the shells' 128 + signal number, which scripts and job schedulers read).
 */
export class CancelledError extends XhdError {
  constructor(reason?: unknown) {
    super(reason === 'SIGTERM' ? 'terminated' : 'cancelled', reason === 'SIGTERM' ? 143 : 130);
  }
}

function formatLocation(where: FileLocation): string {
  if ('line' in where) return `:${where.line}`;
  if ('byte' in where) return ` (byte ${where.byte})`;
  return '';
}
