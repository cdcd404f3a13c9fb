/**
 * A mistake in a command's arguments or a request the command cannot carry out (unknown class,
 * unindexable field...). main prints the message and exits with code 2, like a ConfigError.
 */
export class CommandError extends Error {
}
//# sourceMappingURL=command-error.js.map