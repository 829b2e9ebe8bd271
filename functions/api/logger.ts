import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logger shared by the handlers (level from `POWERTOOLS_LOG_LEVEL`). */
export const logger = new Logger({ serviceName: 'docparse' });
