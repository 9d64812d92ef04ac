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
 * handler.
 *
 * @param {object} o
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} o.client the
 *   instance's DynamoDB client (made once per container, as at init)
 * @param {string} o.tableName the idempotency table
 * @param {(record: object) => Promise<object>} o.work the work per record
 * @param {number} [o.cacheEntries] keep a local cache of this many keys
 *   (useLocalCache); 0 or absent: no cache, Powertools' default
 * @param {(err: Error) => void} [o.onError] sees every record's error
 *   (the record still fails, as without it)
 */
export function newHandler({ client, tableName, work, cacheEntries = 0, onError }) {
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
  const recordHandler = async (record) => work(record);
  const processIdempotently = makeIdempotent(recordHandler, {
    persistenceStore,
    config,
  });
  const processRecord = onError
    ? async (...args) => {
        try {
          return await processIdempotently(...args);
        } catch (err) {
          onError(err);
          throw err;
        }
      }
    : processIdempotently;
  return async (event, context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, processRecord, processor, {
      context,
    });
  };
}
