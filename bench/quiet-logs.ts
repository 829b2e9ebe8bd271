/**
 * Quiets the handlers' structured logger, which reads its level when first loaded: import this
 * module before anything that loads the handlers.
 */
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
