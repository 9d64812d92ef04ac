// Package streamtest tests a stream handler (handler/stream's Kinesis or
// DynamoDB) the way Lambda's event source mapping for Kinesis and
// DynamoDB Streams treats it, as handlertest.Queue and Drain do for SQS:
//
//   - Shard is an in-memory Kinesis shard: Put appends a record with a
//     partition key and data under a new, increasing sequence number.
//   - Drain reads a shard (any Reader: the in-memory Shard, or a reader of
//     a real Kinesis or DynamoDB Streams shard) from its checkpoint in
//     batches of Mapping.BatchSize and invokes the handler with each,
//     with ReportBatchItemFailures: the records before the first reported
//     one are checkpointed and the shard resumes from it; a function
//     error (or a response naming no record of the batch) sends the whole
//     batch again, or splits it in two (BisectBatchOnFunctionError);
//     MaximumRetryAttempts and MaximumRecordAge end the retries, and the
//     batch's metadata goes to Result.OnFailure.
//
// idemq's harness reads a Kinesis shard on moto_server and a DynamoDB
// table's stream on DynamoDB Local through Reader, and drives them with
// Drain (make pipeline-streams).
//
// Where it differs from Lambda: one batch of a shard at a time
// (ParallelizationFactor 1), no batching window, no payload limit; an
// invocation that retries from the same checkpoint counts as a retry
// attempt, one that moved the checkpoint starts the count again; after a
// partial failure a bisected half retries its own remaining records, a
// batch read from the shard is read again from the checkpoint.
package streamtest
