package dynamostore

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// WithMultiRegionStrong makes a Store, CreateTable and CheckTable for a
// global table with multi-Region strong consistency (MRSC): a table whose
// replicas in three Regions (or two and a witness) judge every condition
// against the latest version of the item, so one claim wins across all
// Regions. Such a table keeps no TTL and runs no transactions (DynamoDB
// developer guide, How global tables work), so the store refuses staged
// writes (dynamostore.Stage) with idem.ErrUnsupportedWrite before it sends
// anything, CreateTable leaves TTL off (an MRSC table is made from an empty
// table in one Region, then given its replicas), and CheckTable does not
// ask for TTL. Expired records are then never deleted by DynamoDB: a claim
// takes an expired record over all the same, and idem.Admin's List
// (ExpiresBefore) and Delete remove them. It sets Config.MultiRegionStrong.
// Defaults to off: a table in one Region, with TTL.
func WithMultiRegionStrong() Option {
	return func(c *Config) { c.MultiRegionStrong = true }
}

// legacyGlobalTables is the GlobalTableVersion of the first global tables,
// whose replicas are always eventually consistent.
const legacyGlobalTables = "2017.11.29"

// checkReplicas refuses a table whose replicas can each grant a claim: a
// global table with multi-Region eventual consistency (MREC, the default
// of a replica added to a table). It refuses a table with strong
// consistency (MRSC) to a store not made WithMultiRegionStrong, which
// would stage writes the table cannot commit. It reports whether the table
// is an MRSC one.
func checkReplicas(table string, d *types.TableDescription, o Config) (strong bool, err error) {
	var regions []string
	for _, r := range d.Replicas {
		regions = append(regions, aws.ToString(r.RegionName))
	}
	for _, w := range d.GlobalTableWitnesses {
		regions = append(regions, aws.ToString(w.RegionName)+" (witness)")
	}
	legacy := aws.ToString(d.GlobalTableVersion) == legacyGlobalTables
	if len(regions) == 0 && !legacy {
		return false, nil // a table in one Region
	}
	if legacy || d.MultiRegionConsistency != types.MultiRegionConsistencyStrong {
		mode := string(d.MultiRegionConsistency)
		if mode == "" {
			mode = "unset, so EVENTUAL"
		}
		if legacy {
			mode = "a global table of version " + legacyGlobalTables
		}
		return false, fmt.Errorf("%w: %s is a global table with multi-Region eventual consistency (MultiRegionConsistency %s; replicas in %v): "+
			"each Region judges a claim's condition against its own copy of the record, and writes to one key from two Regions resolve "+
			"last writer wins, so two Regions can both claim one key and both run the work. Keep the records in a table of one Region, "+
			"or in a global table made with multi-Region strong consistency (MultiRegionConsistency STRONG; a global table's mode "+
			"cannot be changed, so make a new one) and a store made WithMultiRegionStrong",
			ErrTableMismatch, table, mode, regions)
	}
	if !o.MultiRegionStrong {
		return true, fmt.Errorf("%w: %s is a global table with multi-Region strong consistency (replicas in %v), which keeps no TTL and "+
			"runs no transactions: make the store with dynamostore.WithMultiRegionStrong(), which refuses staged writes (dynamostore.Stage) "+
			"before anything is sent and asks for no TTL, and pass it to CheckTable too",
			ErrTableMismatch, table, regions)
	}
	return true, nil
}
