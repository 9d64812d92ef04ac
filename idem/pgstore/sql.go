package pgstore

import "fmt"

// statements are the store's SQL, made once per table. Times are numbers
// here and only here: the expiry in epoch seconds rounded up
// (storekit.ExpirySeconds), the lease in epoch milliseconds, both from the
// caller's clock (see the package doc).
type statements struct {
	claim, complete, release, extend, get, deleteExpired string
	list, delete                                         string
}

// columns are a record's columns in the order record scans them.
const columns = "id, status, expiration, in_progress_expiration, data, validation, owner, result_omitted_bytes, data_encoding"

func newStatements(t string) statements {
	return statements{
		claim:    fmt.Sprintf(claimSQL, t),
		complete: fenced(t, fmt.Sprintf(completeSQL, t), ", o.result_omitted_bytes, o.data = $3 AND o.data_encoding IS NOT DISTINCT FROM $6"),
		release:  fenced(t, fmt.Sprintf(releaseSQL, t), ""),
		extend:   fenced(t, fmt.Sprintf(extendSQL, t), ""),
		get:      fmt.Sprintf("SELECT "+columns+" FROM %s WHERE id = $1", t),
		list:     fmt.Sprintf(listSQL, t),
		delete:   fenced(t, fmt.Sprintf(deleteSQL, t), ", o.in_progress_expiration"),
		// The inner select picks a bounded batch of the oldest expired
		// rows, skipping rows a claim has locked; the outer delete checks
		// the expiry again under the lock.
		deleteExpired: fmt.Sprintf(`DELETE FROM %[1]s WHERE expiration < $1 AND id IN (
	SELECT id FROM %[1]s WHERE expiration < $1 ORDER BY expiration LIMIT $2 FOR UPDATE SKIP LOCKED)`, t),
	}
}

// claimSQL is the claim: one statement that inserts the record, takes
// over a claimable one, or returns the one that holds the key.
//
// Parameters: $1 key, $2 expiry (s), $3 lease (ms, or NULL), $4
// fingerprint (or NULL), $5 owner, $6 now (s), $7 now (ms).
//
// Under READ COMMITTED, a plain SELECT in the statement reads its
// snapshot, which misses a row that a concurrent claim committed after the
// statement began; INSERT … ON CONFLICT does not: it waits for the
// concurrent insert and then locks the row's latest version. So:
//
//   - old locks and reads the row's latest version, if the snapshot has
//     the row: the record a take-over replaces (Claim.Previous), or the
//     one that holds the key.
//   - up inserts the record. On a conflict with a row old read, it takes
//     the row over if it is claimable (idem.Record.Claimable: expired in
//     whole seconds, or INPROGRESS with a lease passed in whole
//     milliseconds) and otherwise does nothing: old is the holder. On a
//     conflict with a row the snapshot missed (a claim that raced this
//     one), it rewrites the row unchanged, so RETURNING brings back the
//     latest version: the holder. It never takes such a row over, since
//     old cannot say what it replaced; the store retries the statement
//     if that holder turns out claimable.
//
// old is read before up changes the row: up's WHERE reads old first, on
// the conflict, before the row is updated. Rows come back tagged 'up' (the
// row as written) or 'old' (as read before).
const claimSQL = `WITH old AS (
	SELECT ` + columns + ` FROM %[1]s WHERE id = $1 FOR UPDATE
), up AS (
	INSERT INTO %[1]s AS r (id, status, expiration, in_progress_expiration, validation, owner)
	VALUES ($1, 'INPROGRESS', $2, $3, $4, $5)
	ON CONFLICT (id) DO UPDATE SET
		status                 = CASE WHEN EXISTS (SELECT 1 FROM old) THEN excluded.status ELSE r.status END,
		expiration             = CASE WHEN EXISTS (SELECT 1 FROM old) THEN excluded.expiration ELSE r.expiration END,
		in_progress_expiration = CASE WHEN EXISTS (SELECT 1 FROM old) THEN excluded.in_progress_expiration ELSE r.in_progress_expiration END,
		validation             = CASE WHEN EXISTS (SELECT 1 FROM old) THEN excluded.validation ELSE r.validation END,
		owner                  = CASE WHEN EXISTS (SELECT 1 FROM old) THEN excluded.owner ELSE r.owner END,
		data                   = CASE WHEN EXISTS (SELECT 1 FROM old) THEN NULL ELSE r.data END,
		result_omitted_bytes   = CASE WHEN EXISTS (SELECT 1 FROM old) THEN NULL ELSE r.result_omitted_bytes END,
		data_encoding          = CASE WHEN EXISTS (SELECT 1 FROM old) THEN NULL ELSE r.data_encoding END
	WHERE NOT EXISTS (SELECT 1 FROM old)
		OR r.expiration < $6
		OR (r.status = 'INPROGRESS' AND r.in_progress_expiration IS NOT NULL AND r.in_progress_expiration < $7)
	RETURNING r.id, r.status, r.expiration, r.in_progress_expiration, r.data, r.validation, r.owner, r.result_omitted_bytes, r.data_encoding
)
SELECT 'up', * FROM up
UNION ALL
SELECT 'old', * FROM old`

// The fenced writes, each judged on o, the row as fenced reads it
// (locked, its latest version), never on the row as the write's own scan
// finds it in the statement's snapshot.

// completeSQL marks the record COMPLETED with its result ($3, or NULL
// with $4 the size of a result too large to store) in its encoding ($6,
// or NULL: as the work returned it) and new expiry ($5), and drops the
// lease, if owner $2 holds it INPROGRESS.
const completeSQL = `UPDATE %s AS r SET status = 'COMPLETED', data = $3, result_omitted_bytes = $4, expiration = $5, in_progress_expiration = NULL,
	data_encoding = $6
	FROM o WHERE r.id = $1 AND o.owner = $2 AND o.status = 'INPROGRESS'`

// releaseSQL deletes the record if owner $2 holds it INPROGRESS.
const releaseSQL = `DELETE FROM %s AS r USING o WHERE r.id = $1 AND o.owner = $2 AND o.status = 'INPROGRESS'`

// listSQL is a page of records (idem.Admin's List), keyset-paged by
// id: $1 the last id of the page before ("" for the first), $2 the status
// ("" for both), $3 the lease's end (ms, or NULL), $4 the expiry (s, or
// NULL), $5 the page's size plus one, to tell whether another follows,
// $6 and $7 the namespace's key prefixes (idem.ListRequest.KeyPrefixes:
// "" for every namespace; a scoped key holds a '#' after its prefix).
const listSQL = `SELECT ` + columns + ` FROM %s WHERE id > $1
	AND ($2 = '' OR status = $2)
	AND ($3::bigint IS NULL OR (status = 'INPROGRESS' AND in_progress_expiration < $3))
	AND ($4::bigint IS NULL OR expiration < $4)
	AND ($6 = '' OR starts_with(id, $6) OR (starts_with(id, $7) AND strpos(id, '#') > 0))
	ORDER BY id LIMIT $5`

// deleteSQL deletes the record (idem.Admin's Delete) if it still has the
// status $2, the owner $3 and the lease $4 (ms, or NULL: none) read.
const deleteSQL = `DELETE FROM %s AS r USING o WHERE r.id = $1 AND o.status = $2 AND o.owner = $3 AND o.in_progress_expiration IS NOT DISTINCT FROM $4`

// extendSQL moves the lease to $3 (ms, or NULL: none) and the expiry to
// $4 (s, or NULL: as it is) if owner $2 holds the record INPROGRESS.
const extendSQL = `UPDATE %s AS r SET in_progress_expiration = $3, expiration = COALESCE($4, r.expiration)
	FROM o WHERE r.id = $1 AND o.owner = $2 AND o.status = 'INPROGRESS'`

// fenced wraps a write conditioned on o, the row of key $1, so that one
// statement says whether it applied and, when it did not, what the row
// held: its status and owner, then extra.
//
// o reads the row locked (FOR UPDATE): its latest version, after waiting
// for a concurrent writer's lock, as the claim statement's old does, and
// the write's condition is o's, so the write is decided, refused or
// applied, on the version its refusal reports, which stays locked until
// the statement ends. Under READ COMMITTED the statement's snapshot can
// be older: an UPDATE or DELETE conditioned on its own scan of the row
// judges the snapshot's version, and re-judges only a row that matched
// there. So a write that waited for a take-over's lock was refused
// rightly but named the row as the snapshot had it, the writer itself as
// the owner (TestRefusalAfterATakeOverNamesTheNewOwner); and a write
// racing its owner's own claim, whose snapshot still had the record the
// claim replaced, was refused though its owner held the row
// (TestWriteRacingItsOwnClaimIsJudgedOnTheLatestRow).
func fenced(t, write, extra string) string {
	return fmt.Sprintf(`WITH o AS (
	SELECT status, owner, result_omitted_bytes, data, data_encoding, in_progress_expiration FROM %s WHERE id = $1 FOR UPDATE
), w AS (%s RETURNING 1)
SELECT EXISTS (SELECT 1 FROM w), o.status, o.owner%s FROM (VALUES (1)) AS one LEFT JOIN o ON true`, t, write, extra)
}
