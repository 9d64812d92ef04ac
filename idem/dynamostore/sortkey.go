package dynamostore

// WithSortKey keeps records in a table whose primary key has a sort key,
// as a single-table design's does: the sort key attribute sortKey (a
// string) holds the idem.Key, and the partition key (Attributes.Key, "id"
// by default) holds partitionValue on every record. These are
// Powertools' sort_key_attr and static_pk_value, whose default value is
// "idempotency#" plus the function's name.
//
// Every record then lives under one partition key value. DynamoDB
// documents 1,000 writes a second per partition, and splits a busy
// partition by sort key ranges only as traffic grows; a table of its own
// (the default) spreads records from the start. It sets Config.SortKey
// and Config.PartitionValue: New refuses one without the other, or a sort
// key that names another attribute. Defaults to none: the partition key
// holds the idem.Key.
func WithSortKey(sortKey, partitionValue string) Option {
	return func(c *Config) { c.SortKey, c.PartitionValue = sortKey, partitionValue }
}
