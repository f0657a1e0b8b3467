// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
import { Chalk, type ChalkInstance } from 'chalk';

export function terminalChalk(stream: NodeJS.WriteStream): ChalkInstance {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  return new Chalk({ level: !noColor && stream.isTTY ? 1 : 0 });
}
