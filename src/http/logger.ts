import pino from 'pino';
import { config } from '../config';

/**
 * Structured JSON logs. Request logs carry method, path, status and timing only: never headers
 * (the API key) or bodies (card numbers). The redact list is a second line of defence.
 */
export const logger = pino({
  level: config.logLevel,
  base: { service: 'billing' },
  redact: {
    paths: [
      '*.cc-api-key',
      '*.headers',
      'req.body',
      '*.number',
      '*.card.number',
      '*.cvc',
      '*.account_number',
      'apiKey',
      'api_key',
    ],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
