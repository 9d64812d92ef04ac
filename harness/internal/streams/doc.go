// Package streams reads real stream shards for streamtest.Drain, the
// driver that plays Lambda's event source mapping: a Kinesis data
// stream's shard on moto_server (KinesisShard) and a DynamoDB table's
// stream on DynamoDB Local (TableStream), each record converted to the
// event Lambda hands a function (events.KinesisEventRecord,
// events.DynamoDBEventRecord), field by field as Lambda fills it.
//
// Run is make pipeline-streams's run (harness/cmd/streams): a producer
// puts requests on such a stream while its shards are drained into idemq's
// stream handler under faults, and the provider's calls are checked.
//
// Where the readers differ from Lambda's mapping: each Read asks for a
// new shard iterator (AFTER_SEQUENCE_NUMBER the checkpoint, or
// TRIM_HORIZON) rather than keep one; one shard per Drain, no
// resharding (a closed shard's children are not followed: the runs are
// minutes long, DynamoDB Local's stream keeps one shard for them); no
// batching window, polling interval or payload limit; invokeIdentityArn
// is a fixed role. The rest of the mapping's behaviour is Drain's
// (handler/stream/streamtest's doc).
package streams
