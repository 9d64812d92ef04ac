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
// the table, the columns added to it since it was first released, and the
// index on expiration that DeleteExpired uses. Run it with your
// migrations, or call CreateTable. Every statement is a no-op where there
// is nothing to do, so running it again brings a table made by an earlier
// version up to date; the ALTER TABLE takes the table's lock for a moment.
//
//	CREATE TABLE IF NOT EXISTS "idempotency" (
//	    id                     text   PRIMARY KEY,
//	    status                 text   NOT NULL CHECK (status IN ('INPROGRESS', 'COMPLETED')),
//	    expiration             bigint NOT NULL,  -- epoch seconds, rounded up
//	    in_progress_expiration bigint,           -- lease of an INPROGRESS claim, epoch milliseconds
//	    owner                  text   NOT NULL,  -- token of the claim that wrote the record
//	    validation             text,             -- payload fingerprint; NULL: not checked
//	    data                   bytea,            -- result of a COMPLETED record
//	    result_omitted_bytes   bigint,           -- size of a result too large to store
//	    data_encoding          text              -- how data is encoded ('gzip'); NULL: as the work returned it
//	);
//	ALTER TABLE "idempotency" ADD COLUMN IF NOT EXISTS data_encoding text;
//	CREATE INDEX IF NOT EXISTS "idempotency_expiration_idx" ON "idempotency" (expiration);
func Schema(table string) string {
	return createSQL(table) + "\n" + upgradeSQL(table, addedColumns) + "\n" + indexSQL(table)
}

// createSQL creates the table, with every column.
func createSQL(table string) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
    id                     text   PRIMARY KEY,
    status                 text   NOT NULL CHECK (status IN ('INPROGRESS', 'COMPLETED')),
    expiration             bigint NOT NULL,
    in_progress_expiration bigint,
    owner                  text   NOT NULL,
    validation             text,
    data                   bytea,
    result_omitted_bytes   bigint,
    data_encoding          text
);`, quoteTable(table))
}

// indexSQL creates the index on expiration.
func indexSQL(table string) string {
	parts := strings.Split(table, ".")
	index := pgx.Identifier{parts[len(parts)-1] + "_expiration_idx"}.Sanitize()
	return fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (expiration);", index, quoteTable(table))
}

// upgradeSQL adds the given columns (of addedColumns) where missing.
func upgradeSQL(table string, names []string) string {
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s;", quoteTable(table), name, wantColumns[name])
	}
	return b.String()
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
	"data_encoding":          "text",
}

// addedColumns are the nullable columns added to the table after it was
// first released, in the order they were added: a table made before has
// none of them, and CreateTable adds them (Schema's ALTER TABLE).
var addedColumns = []string{"data_encoding"}

// Execer runs a statement; *pgxpool.Pool, *pgx.Conn and pgx.Tx have it.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// CreateTable creates the store's table and its index (Schema) if they do
// not exist, then checks the table's shape: a table of that name made by
// other means, with another shape, is ErrTableShape, and is left as it
// was. A table made by an earlier version, with the store's shape but for
// the columns added since (data_encoding), gets them: an ALTER TABLE …
// ADD COLUMN of a nullable column, which changes no row and takes the
// table's lock for a moment. An empty table name is an *idem.ConfigError,
// and nothing is sent.
func CreateTable(ctx context.Context, db Execer, table string) error {
	if table == "" {
		return configError("table", `""`, errEmptyTable)
	}
	if _, err := db.Exec(ctx, createSQL(table)+"\n"+indexSQL(table)); err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "23505" {
			// Two CreateTable calls at once raced in the catalog: the
			// table is there.
			return upgrade(ctx, db, table)
		}
		// A table of that name with another shape fails the index: say
		// what differs.
		if shapeErr := checkTable(ctx, db, table); errors.Is(shapeErr, ErrTableShape) {
			return shapeErr
		}
		return fmt.Errorf("pgstore: create table %s: %w", table, err)
	}
	return upgrade(ctx, db, table)
}

// upgrade adds the columns added since an earlier version to a table
// that otherwise has the store's shape, then checks it.
func upgrade(ctx context.Context, db Execer, table string) error {
	sh, err := inspect(ctx, db, table)
	if err != nil {
		return err
	}
	if len(sh.problems) == 0 && len(sh.missing) > 0 {
		if _, err := db.Exec(ctx, upgradeSQL(table, sh.missing)); err != nil {
			return fmt.Errorf("pgstore: add %s to table %s: %w", strings.Join(sh.missing, ", "), table, err)
		}
	}
	return checkTable(ctx, db, table)
}

// Check reports whether the store's table has the shape its statements
// need (ErrTableShape if not, saying what differs). It reads the catalog
// only. A table created by CreateTable or the DDL of Schema passes; one
// made by an earlier version fails until the migration (CreateTable, or
// Schema's ALTER TABLE) adds the columns added since.
func (s *Store) Check(ctx context.Context) error {
	return checkTable(ctx, s.db, s.name)
}

// shape is what inspect found: the differences from the store's shape,
// apart from missing, the columns of addedColumns the table lacks.
type shape struct {
	problems []string
	missing  []string
}

func checkTable(ctx context.Context, db Execer, table string) error {
	sh, err := inspect(ctx, db, table)
	if err != nil {
		return err
	}
	problems := sh.problems
	if len(sh.missing) > 0 {
		problems = append(problems, fmt.Sprintf(
			"column %s is missing: the table was made by an earlier version; add it with the migration, pgstore.CreateTable (or: %s)",
			strings.Join(sh.missing, ", "), upgradeSQL(table, sh.missing)))
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%w: table %s: %s", ErrTableShape, table, strings.Join(problems, "; "))
	}
	return nil
}

// inspect reads the table's shape from the catalog.
func inspect(ctx context.Context, db Execer, table string) (shape, error) {
	var sh shape
	rows, err := db.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef
FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, quoteTable(table))
	if err != nil {
		return sh, fmt.Errorf("pgstore: check table %s: %w", table, err)
	}
	seen := make(map[string]bool)
	for rows.Next() {
		var name, typ string
		var notNull, hasDefault bool
		if err := rows.Scan(&name, &typ, &notNull, &hasDefault); err != nil {
			rows.Close()
			return sh, fmt.Errorf("pgstore: check table %s: %w", table, err)
		}
		seen[name] = true
		want, ours := wantColumns[name]
		switch {
		case ours && typ != want:
			sh.problems = append(sh.problems, fmt.Sprintf("column %s is %s, want %s", name, typ, want))
		case !ours && notNull && !hasDefault:
			sh.problems = append(sh.problems, fmt.Sprintf("column %s is NOT NULL without a default, and the store does not fill it", name))
		}
	}
	if err := rows.Err(); err != nil {
		return sh, fmt.Errorf("pgstore: check table %s: %w", table, err)
	}
	if len(seen) == 0 {
		return sh, fmt.Errorf("%w: table %s does not exist (create it with pgstore.CreateTable)", ErrTableShape, table)
	}
	added := make(map[string]bool)
	for _, name := range addedColumns {
		added[name] = true
		if !seen[name] {
			sh.missing = append(sh.missing, name)
		}
	}
	for name := range wantColumns {
		if !seen[name] && !added[name] {
			sh.problems = append(sh.problems, "column "+name+" is missing")
		}
	}
	var unique bool
	err = db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index i
	JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
	WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indnatts = 1 AND i.indpred IS NULL AND a.attname = 'id')`,
		quoteTable(table)).Scan(&unique)
	if err != nil {
		return sh, fmt.Errorf("pgstore: check table %s: %w", table, err)
	}
	if !unique {
		sh.problems = append(sh.problems, "id is not its primary key (no unique index on id alone)")
	}
	return sh, nil
}
