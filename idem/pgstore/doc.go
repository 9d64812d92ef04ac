// Package pgstore is an idem.Store kept in a PostgreSQL table (pgx v5). It
// is the only package of idemq that imports pgx.
//
//	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	...
//	if err := pgstore.CreateTable(ctx, pool, "idempotency"); err != nil { ... }
//	store, err := pgstore.New(pool, "idempotency")
//	res, err := idem.Do(ctx, store, key, fingerprint, work)
//
// # Table
//
// One row per key; Schema returns the DDL (with the names of the DynamoDB
// store's attributes, Powertools'), CreateTable runs it and checks the
// result, and Store.Check checks a table made by your migrations.
//
//	column                  type    holds
//	id                      text    the idem.Key (primary key)
//	status                  text    INPROGRESS or COMPLETED
//	expiration              bigint  expiry, epoch seconds (rounded up); indexed for DeleteExpired
//	in_progress_expiration  bigint  lease of an INPROGRESS claim, epoch milliseconds
//	owner                   text    token of the claim that wrote the record
//	validation              text    payload fingerprint (NULL if not checked)
//	data                    bytea   result of a COMPLETED record
//	result_omitted_bytes    bigint  size of a result too large to store: COMPLETED without data
//	data_encoding           text    how data is encoded: 'gzip'; NULL: as the work returned it
//
// data_encoding came with compressed results (idem.Config.CompressAbove).
// A table made before it fails Check (ErrTableShape, naming the column)
// until the migration adds it: CreateTable does, or the ALTER TABLE in
// Schema. Rows written before read as they always did.
//
// PostgreSQL has no TTL. Store.DeleteExpired removes expired rows in
// bounded batches (one DELETE of at most limit rows, through the index,
// skipping rows a claim has locked); run it from a scheduled job. Claims
// never rely on it: an expired row still present is claimable, as in
// DynamoDB before its TTL sweeper comes.
//
// # Statements
//
//	operation  statements                                  condition
//	Claim      1: CTE (SELECT … FOR UPDATE, INSERT … ON     key absent, or expired, or INPROGRESS with a passed lease
//	           CONFLICT DO UPDATE … WHERE) returning the
//	           row written, or the holder
//	Complete   1: UPDATE (in a CTE saying why on failure)   owner holds it INPROGRESS
//	           with staged writes: BEGIN, UPDATE, writes, COMMIT
//	Release    1: DELETE                                    owner holds it INPROGRESS
//	Extend     1: UPDATE of the lease                       owner holds it INPROGRESS
//
// A new key costs two statements (claim, complete), a duplicate one: the
// claim that loses brings back the record that holds the key, with its
// result or lease, in the same round trip. Each statement is one round
// trip once pgx has prepared it on the connection (its default statement
// cache; the first use on a connection adds one).
//
// Under READ COMMITTED, INSERT … ON CONFLICT sees rows that concurrent
// claims committed after the statement began, but a SELECT in the same
// statement does not; the claim statement is written so that a loser of
// such a race still gets the winner's row (see claimSQL in sql.go, and
// TestRacingClaimsLearnTheWinnerInOneStatement). It works at any isolation
// level PostgreSQL runs autocommit statements at; under SERIALIZABLE a
// racing claim may instead fail with a serialization error, which the
// store sends again.
//
// # Whose clock
//
// The caller's. Claim compares the record's expiry and lease with
// ClaimRequest.Now, and every time stored was computed by a caller from
// its idem.Clock; the database's now() is never read. idem.Store says
// stores have no clock, and this store follows it: leases and expiries are
// then judged on one time line (the workers'), the tests can move time by
// hand, and a database whose clock is off changes nothing. The cost is
// that workers' clocks must be within idem.Config.ClockSkew of the true
// time (500 ms by default), as they must for every store: idem.Do pads
// the times it writes by it and judges claims that much late;
// NTP-synchronised hosts (Lambda's) agree to milliseconds.
// DeleteExpired takes the time to judge by for the same reason.
//
// # Staged writes
//
// Stage adds a write, a function of the completion's pgx.Tx, that commits
// in the same transaction as the record's completion, and only if the
// claim still held: the record and your rows cannot disagree. Any other
// staged type is idem.ErrUnsupportedWrite.
//
// # Errors and faults
//
// Errors are *idem.Error values naming the operation and key; pgx's and
// PostgreSQL's errors stay wrapped for errors.As. A failed fence is
// idem.ErrLeaseLost; a result over the store's limit (512 KiB,
// 512 KiB; WithMaxResultBytes) is idem.ErrResultTooLarge, found before
// anything is sent (idem.Do then completes the record without it); a table
// with another shape is ErrTableShape, and nothing is written to it.
//
// A claim or a completion whose connection fails is sent again, up to
// 4 times: both are idempotent (a claim found held by its
// own owner is Claimed; a completion found applied with the same result
// succeeds), so an answer lost with its connection loses nothing. Release
// and Extend are sent again only when nothing reached the server. An
// unreachable server is an *idem.Error from the claim, and idem.Do runs
// nothing.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package pgstore
