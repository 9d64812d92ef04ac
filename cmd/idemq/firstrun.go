package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5/pgconn"
)

// What a first run most often lacks (a region, credentials, the right
// table) is said in one line naming the setting to fix, not in the SDK's
// or the driver's words.

// checkAWS refuses an AWS configuration with no region, or whose
// credentials cannot be had, before the first request. The credentials
// are cached in cfg, so the first request does not fetch them again.
func checkAWS(ctx context.Context, cfg aws.Config) error {
	if cfg.Region == "" {
		return errors.New("no AWS region: set AWS_REGION to the region of the worker's table (or AWS_PROFILE to a profile that names one)")
	}
	if cfg.Credentials == nil {
		return errors.New("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (for DynamoDB Local, any pair of letters and digits)")
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return fmt.Errorf("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (for DynamoDB Local, any pair of letters and digits); the SDK found none: %v", err)
	}
	return nil
}

// pgUndefinedTable is PostgreSQL's SQLSTATE for a table that does not
// exist.
const pgUndefinedTable = "42P01"

// firstRun returns err, or, when it says the store's table does not
// exist, a line naming the table, where it was looked for, and the
// settings that name it.
func (e *env) firstRun(err error) error {
	if _, ok := errors.AsType[*types.ResourceNotFoundException](err); ok {
		where := "in " + e.region
		if e.endpoint != "" {
			where = fmt.Sprintf("at %s (region %s)", e.endpoint, e.region)
		}
		return fmt.Errorf("DynamoDB %s has no table %q: set IDEMQ_TABLE (or --table) to the worker's table, and AWS_REGION to its region", where, e.table)
	}
	if pg, ok := errors.AsType[*pgconn.PgError](err); ok && pg.Code == pgUndefinedTable {
		return fmt.Errorf("the PostgreSQL database IDEMQ_STORE_URL names has no table %q: set IDEMQ_TABLE (or --table) to the worker's table (make migrate-postgres creates one)", e.table)
	}
	return err
}
