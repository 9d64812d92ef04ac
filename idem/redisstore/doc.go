// Package redisstore is an idem.Store kept in Redis (go-redis v9), one hash
// per key. It is the only package of idemq that imports go-redis.
//
//	opts, err := redis.ParseURL(os.Getenv("REDIS_URL"))
//	...
//	store, err := redisstore.New(redis.NewClient(opts)) // or a *redis.ClusterClient
//	res, err := idem.Do(ctx, store, key, fingerprint, work)
//
// # Keys
//
// The record of key k is a hash at prefix+k (WithPrefix; "idemq:" by
// default), with the fields named as the other stores' columns:
//
//	field                   holds
//	status                  INPROGRESS or COMPLETED
//	expiration              expiry, epoch seconds (rounded up)
//	in_progress_expiration  lease of an INPROGRESS claim, epoch milliseconds
//	owner                   token of the claim that wrote the record
//	validation              payload fingerprint (absent if not checked)
//	data                    result of a COMPLETED record
//	result_omitted_bytes    size of a result too large to store: COMPLETED without data
//	data_encoding           how data is encoded: gzip; absent: as the work returned it
//
// The key's Redis expiry is the record's: PEXPIREAT at expiration × 1000,
// set by the claim and moved by the completion, so Redis removes a record
// when it expires (never before: the seconds are rounded up) and no
// cleanup job is needed. Claims do not rely on it either: an expired
// record Redis still holds is claimable.
//
// # Scripts
//
//	operation  script                                             condition
//	Claim      HGETALL, then DEL + HSET + PEXPIREAT; returns the   key absent, or expired, or INPROGRESS with a passed lease
//	           previous record, or the holder
//	Complete   HMGET, then HDEL + HSET + PEXPIREAT                 owner holds it INPROGRESS
//	Release    HMGET, then DEL                                     owner holds it INPROGRESS
//	Extend     HMGET, then HSET (or HDEL) of the lease             owner holds it INPROGRESS
//
// Each is one EVALSHA (the first on a server adds a NOSCRIPT answer and an
// EVAL); Redis runs a script atomically. A new key costs two round trips
// (claim, complete), a duplicate one, which brings back the holder with
// its result or lease.
//
// Every script touches one key, so in a Redis Cluster any key can live in
// any slot: a record needs no hash tag, and a *redis.ClusterClient routes
// each script to the key's shard.
//
// # Whose clock
//
// The caller's, for every decision: Claim compares the record's expiry
// and lease with ClaimRequest.Now, as idem.Store asks (stores have no
// clock). The one exception is Redis's own expiry of the key, which the
// server's clock runs: a server clock ahead of the workers' removes a
// record early by the difference. Keep the servers on NTP, and the
// expiry (idem.Config.Expiry) well beyond the queue's retention.
//
// # Persistence: what once per key needs from Redis
//
// A claim acknowledged by Redis is in memory only until it is persisted or
// replicated. Whatever loses it lets the key be claimed again, and the
// work run twice:
//
//   - appendonly no (snapshots only, or no persistence): a restart loses
//     every claim and result since the last snapshot.
//   - appendonly yes, appendfsync everysec (Redis's default with AOF): a
//     crash of the host loses up to about a second of claims.
//   - appendonly yes, appendfsync always: nothing acknowledged is lost to a
//     crash, at the cost of an fsync per write.
//   - Replication is asynchronous: a failover (Sentinel, Cluster,
//     ElastiCache) to a replica that had not received a claim forgets
//     it. WAIT 1 after the claim would narrow that window, not close it.
//   - maxmemory-policy must be noeviction: every record has an expiry, so
//     the volatile-* policies evict records too, and an evicted record is
//     a forgotten claim. With noeviction a full server refuses the claim
//     (an error; the message is retried) instead.
//
// For exactly-once work across failovers, use the DynamoDB or PostgreSQL
// store; Redis suits work where a rare second run after a server loss is
// acceptable.
//
// # Errors and faults
//
// Errors are *idem.Error values naming the operation and key; go-redis's
// errors stay wrapped. A failed fence is idem.ErrLeaseLost; a result over
// the store's limit (512 KiB, 512 KiB; WithMaxResultBytes)
// is idem.ErrResultTooLarge, found before anything is sent (idem.Do then
// completes the record without it); a key holding something the store did
// not write is ErrKeySpace, and the key is left as it was. Staged writes
// are idem.ErrUnsupportedWrite: a script can only write keys in the
// record's hash slot, with commands the script itself runs, not the
// caller's code.
//
// go-redis sends a command again when its connection fails (MaxRetries, 3
// by default, after a back-off of 8 to 512 ms). For Claim and Complete
// that is safe: a claim found held by its own owner is Claimed, and a
// completion found applied with the same result succeeds, so an answer
// lost with its connection loses nothing. It is a completion's one retry
// layer, since idem.Do sends it once: a completion costs at most 1 +
// MaxRetries requests, none past the settle deadline idem.Do gives it. A
// Release sent again after it applied reports idem.ErrLeaseLost ("the
// record is gone"); the key is free either way.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package redisstore
