// The name that stands for standard input, apart from the readers so that naming it loads none of them.
export const STDIN_NAME = '-';
