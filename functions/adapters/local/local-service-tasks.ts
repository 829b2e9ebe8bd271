import { z } from 'zod';
import { ConflictError } from '../../core/domain/errors.js';
import type { RequestStore } from '../../core/ports/request-store.js';
import type { serviceTasks } from '../../pipeline/stages.js';
import type { LocalTask } from './local-workflow.js';

/** A string attribute value in DynamoDB's wire shape. */
const S = z.object({ S: z.string() });

/** The resolved Parameters of `MarkFailed` that the stand-in reads. */
const MarkFailedParameters = z.object({
  Key: z.object({ pk: z.object({ S: z.string().startsWith('REQ#') }) }),
  ExpressionAttributeValues: z.object({
    ':error': z.object({ M: z.object({ name: S, kind: S, message: S }) }),
    ':now': S,
  }),
});

/**
 * In-process stand-ins for the definition's service-integration Task states (`serviceTasks`),
 * which the local runner cannot send to AWS. `MarkFailed` (DynamoDB UpdateItem) is applied
 * through the request store rather than the table, since the local store is the only writer of
 * its records and keeps them in memory: the same update (status `failed` with the error, only
 * from `queued` or `processing`), failing with `DynamoDB.ConditionalCheckFailedException` when
 * the request has ended already, as the service integration does.
 */
export function localServiceTasks(
  requests: RequestStore,
): Record<(typeof serviceTasks)[number], LocalTask> {
  return {
    MarkFailed: async (input) => {
      const { Key, ExpressionAttributeValues: values } = MarkFailedParameters.parse(input);
      const error = values[':error'].M;
      try {
        await requests.update(
          Key.pk.S.slice('REQ#'.length),
          {
            status: 'failed',
            error: { name: error.name.S, kind: error.kind.S, message: error.message.S },
            updatedAt: values[':now'].S,
          },
          ['queued', 'processing'],
        );
      } catch (cause) {
        if (!(cause instanceof ConflictError)) throw cause;
        throw Object.assign(new Error('The conditional request failed', { cause }), {
          name: 'DynamoDB.ConditionalCheckFailedException',
        });
      }
      return {};
    },
  };
}
