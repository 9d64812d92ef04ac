// Package dynamostore is an idem.Store kept in a DynamoDB table. It is the
// only package of idemq that imports the DynamoDB SDK.
//
//	cfg, err := config.LoadDefaultConfig(ctx)
//	...
//	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(100)) // requests at once
//	store, err := dynamostore.New(client, "idempotency")
//	res, err := idem.Do(ctx, store, key, fingerprint, work)
//
// # Table
//
// One item per key. The table needs only its partition key; the attribute
// names are Powertools' by default and can be changed with WithAttributes.
//
//	attribute               type  holds
//	id                      S     the idem.Key (partition key)
//	status                  S     INPROGRESS or COMPLETED
//	expiration              N     expiry, epoch seconds (rounded up): the table's TTL attribute
//	in_progress_expiration  N     lease of an INPROGRESS claim, epoch milliseconds
//	owner                   S     token of the claim that wrote the record
//	validation              S     payload fingerprint (absent if not checked)
//	data                    B     result of a COMPLETED record
//	result_omitted_bytes    N     size of a result too large to store: the record was COMPLETED without data
//	data_encoding           S     how data is encoded: "gzip"; absent: as the work returned it
//
// idem.Do stores a result over idem.Config.CompressAbove (512 bytes by
// default) gzip-compressed when that makes it smaller, with
// data_encoding "gzip", and decompresses it on replay. Items without
// data_encoding (written before it existed, or by Powertools) read as
// they always did; the table needs no change.
//
// In a single-table design, WithSortKey puts the idem.Key in a sort key
// and a static value in the partition key (Powertools' sort_key_attr and
// static_pk_value):
//
//	store, err := dynamostore.New(client, "app", dynamostore.WithSortKey("sk", "idempotency#worker"))
//
// Create it with on-demand billing and turn on TTL on "expiration" so old
// records are swept. TTL deletes "within a few days" of expiry, and the
// store never relies on it: every claim compares the expiry itself.
//
// # Requests
//
//	operation  request                      condition
//	Claim      PutItem, ALL_OLD both ways   key absent, or expired, or INPROGRESS with a passed lease
//	Complete   UpdateItem                   owner holds it INPROGRESS
//	           TransactWriteItems           the same, with the staged writes (Completion.Writes)
//	Release    DeleteItem                   owner holds it INPROGRESS
//	Extend     UpdateItem (lease)           owner holds it INPROGRESS
//
// A new key costs two writes (claim, complete); a duplicate costs one, the
// failed claim, whose condition failure returns the record that holds the
// key. A failed condition consumes write capacity like a successful write.
// Writes staged with Stage make the completion a transaction, billed at twice the
// writes. The store needs dynamodb:PutItem, UpdateItem and DeleteItem on
// the table (GetItem for Get), plus what staged writes touch. A completion,
// which follows paid-for work, is sent up to 6 times by
// the SDK's retryer, its one retry layer (idem.Do sends it once).
//
// # Errors
//
// Errors are *idem.Error values naming the operation and key. A failed
// fence is idem.ErrLeaseLost; a record over DynamoDB's 400 KB item limit
// is idem.ErrResultTooLarge (idem.Do then completes it without data, with
// result_omitted_bytes); a staged write whose item is over it is
// ErrWriteTooLarge, found before sending, and settles nothing; throttling
// is ErrThrottled. DynamoDB's own
// error stays wrapped for errors.As.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package dynamostore
