package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Schema returns the DDL of the store's table (a name, or schema.name):
// the table and the index on expiration that DeleteExpired uses. Run it
// with your migrations, or call CreateTable.
//
//	CREATE TABLE IF NOT EXISTS "idempotency" (
//	    id                     text   PRIMARY KEY,
//	    status                 text   NOT NULL CHECK (status IN ('INPROGRESS', 'COMPLETED')),
//	    expiration             bigint NOT NULL,  -- epoch seconds, rounded up
//	    in_progress_expiration bigint,           -- lease of an INPROGRESS claim, epoch milliseconds
//	    owner                  text   NOT NULL,  -- token of the claim that wrote the record
//	    validation             text,             -- payload fingerprint; NULL: not checked
//	    data                   bytea,            -- result of a COMPLETED record
//	    result_omitted_bytes   bigint            -- size of a result too large to store
//	);
//	CREATE INDEX IF NOT EXISTS "idempotency_expiration_idx" ON "idempotency" (expiration);
func Schema(table string) string {
	parts := strings.Split(table, ".")
	index := pgx.Identifier{parts[len(parts)-1] + "_expiration_idx"}.Sanitize()
	t := quoteTable(table)
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %[1]s (
    id                     text   PRIMARY KEY,
    status                 text   NOT NULL CHECK (status IN ('INPROGRESS', 'COMPLETED')),
    expiration             bigint NOT NULL,
    in_progress_expiration bigint,
    owner                  text   NOT NULL,
    validation             text,
    data                   bytea,
    result_omitted_bytes   bigint
);
CREATE INDEX IF NOT EXISTS %[2]s ON %[1]s (expiration);`, t, index)
}

// wantColumns are the columns the store reads and writes, with their types
// as format_type spells them.
var wantColumns = map[string]string{
	"id":                     "text",
	"status":                 "text",
	"expiration":             "bigint",
	"in_progress_expiration": "bigint",
	"owner":                  "text",
	"validation":             "text",
	"data":                   "bytea",
	"result_omitted_bytes":   "bigint",
}

// Execer runs a statement; *pgxpool.Pool, *pgx.Conn and pgx.Tx have it.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// CreateTable creates the store's table and its index (Schema) if they do
// not exist, then checks the table's shape: a table of that name made by
// other means, with another shape, is ErrTableShape, and is left as it
// was.
func CreateTable(ctx context.Context, db Execer, table string) error {
	if table == "" {
		panic("pgstore: empty table name")
	}
	if _, err := db.Exec(ctx, Schema(table)); err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "23505" {
			// Two CreateTable calls at once raced in the catalog: the
			// table is there.
			return checkTable(ctx, db, table)
		}
		// A table of that name with another shape fails the index: say
		// what differs.
		if shapeErr := checkTable(ctx, db, table); errors.Is(shapeErr, ErrTableShape) {
			return shapeErr
		}
		return fmt.Errorf("pgstore: create table %s: %w", table, err)
	}
	return checkTable(ctx, db, table)
}

// Check reports whether the store's table has the shape its statements
// need (ErrTableShape if not, saying what differs). It reads the catalog
// only. A table created by CreateTable or the DDL of Schema passes.
func (s *Store) Check(ctx context.Context) error {
	return checkTable(ctx, s.db, s.name)
}

func checkTable(ctx context.Context, db Execer, table string) error {
	rows, err := db.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef
FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, quoteTable(table))
	if err != nil {
		return fmt.Errorf("pgstore: check table %s: %w", table, err)
	}
	var problems []string
	seen := make(map[string]bool)
	for rows.Next() {
		var name, typ string
		var notNull, hasDefault bool
		if err := rows.Scan(&name, &typ, &notNull, &hasDefault); err != nil {
			rows.Close()
			return fmt.Errorf("pgstore: check table %s: %w", table, err)
		}
		seen[name] = true
		want, ours := wantColumns[name]
		switch {
		case ours && typ != want:
			problems = append(problems, fmt.Sprintf("column %s is %s, want %s", name, typ, want))
		case !ours && notNull && !hasDefault:
			problems = append(problems, fmt.Sprintf("column %s is NOT NULL without a default, and the store does not fill it", name))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgstore: check table %s: %w", table, err)
	}
	if len(seen) == 0 {
		return fmt.Errorf("%w: table %s does not exist (create it with pgstore.CreateTable)", ErrTableShape, table)
	}
	for name := range wantColumns {
		if !seen[name] {
			problems = append(problems, "column "+name+" is missing")
		}
	}
	var unique bool
	err = db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index i
	JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
	WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indnatts = 1 AND i.indpred IS NULL AND a.attname = 'id')`,
		quoteTable(table)).Scan(&unique)
	if err != nil {
		return fmt.Errorf("pgstore: check table %s: %w", table, err)
	}
	if !unique {
		problems = append(problems, "id is not its primary key (no unique index on id alone)")
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%w: table %s: %s", ErrTableShape, table, strings.Join(problems, "; "))
	}
	return nil
}
