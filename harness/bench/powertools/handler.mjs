// The Powertools side of the benchmark: an SQS-triggered Lambda handler
// made idempotent with @aws-lambda-powertools/idempotency and
// @aws-lambda-powertools/batch, wired as their docs show ("Batch
// integration"): BatchProcessor + processPartialResponse around a record
// handler wrapped by makeIdempotent, the key taken from the body with
// powertools_json(body).idempotency_key, the Lambda context registered on
// every invocation. Everything else is Powertools' default.
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
} from '@aws-lambda-powertools/batch';
import {
  IdempotencyConfig,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';

/**
 * newHandler returns what one function instance would export as its
 * handler, built as the docs' "Batch integration" example builds it: the
 * record handler itself handed to makeIdempotent, the Lambda context
 * registered on every invocation, nothing between them. Its processor
 * comes with it: the driver reads a failed batch's errors from it
 * (processor.errors, kept until the next batch), outside the handler.
 *
 * @param {object} o
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} o.client the
 *   instance's DynamoDB client (made once per container, as at init)
 * @param {string} o.tableName the idempotency table
 * @param {(record: object) => Promise<object>} o.work the work per record
 * @param {number} [o.cacheEntries] keep a local cache of this many keys
 *   (useLocalCache); 0 or absent: no cache, Powertools' default
 * @returns {{handler: (event: object, context: object) => Promise<object>,
 *   processor: BatchProcessor}}
 */
export function newHandler({ client, tableName, work, cacheEntries = 0 }) {
  const processor = new BatchProcessor(EventType.SQS);
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName,
    awsSdkV3Client: client,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'powertools_json(body).idempotency_key',
    ...(cacheEntries > 0
      ? { useLocalCache: true, maxLocalCacheSize: cacheEntries }
      : {}),
  });
  // The key prefix Powertools writes includes this function's name, so
  // every instance names it alike.
  const processIdempotently = makeIdempotent(work, {
    persistenceStore,
    config,
  });
  const handler = async (event, context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, processIdempotently, processor, {
      context,
    });
  };
  return { handler, processor };
}
