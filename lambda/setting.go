package main

import (
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem"
)

// settingVars maps a library setting, package and field as an
// *idem.ConfigError names it, to the variable that sets it.
var settingVars = map[[2]string]string{
	{"idem", "Expiry"}:                envRecordExpiry,
	{"idem", "Lease"}:                 envLease,
	{"idem", "Heartbeat"}:             envHeartbeat,
	{"idem", "CompressAbove"}:         envCompress,
	{"idem", "OffloadAbove"}:          envOffloadAbove,
	{"handler", "Namespace"}:          envNamespace,
	{"request", "Namespace"}:          envNamespace,
	{"handler", "KeyField"}:           envKeyField,
	{"handler", "Concurrency"}:        envConcurrency,
	{"handler", "QueueURL"}:           envQueueURL,
	{"handler", "EMFNamespace"}:       envEMF,
	{"consumer", "queueURL"}:          envConsumerQueueURL,
	{"consumer", "MaxRunTime"}:        envConsumerMaxRunTime,
	{"consumer", "MaxBatches"}:        envConsumerBatches,
	{"consumer", "GracePeriod"}:       envConsumerGrace,
	{"consumer", "VisibilityTimeout"}: envConsumerVisibility,
	{"dynamostore", "table"}:          envTable,
	{"pgstore", "table"}:              envTable,
	{"redisstore", "Prefix"}:          envTable,
	{"s3blob", "bucket"}:              envBlobBucket,
	{"durable", "function"}:           envDurableFunction,
	{"durable", "Concurrency"}:        envConcurrency,
	{"frontdoor", "Namespace"}:        envNamespace,
	{"request", "KeyField"}:           envKeyField,
	{"request", "KeyFields"}:          envKeyFields,
	{"frontdoor", "Path"}:             envFrontPath,
	{"frontdoor", "MaxBodyBytes"}:     envFrontMaxBody,
}

// settingError reports err, a library's refusal of a setting, as a
// configuration error naming the variable that sets it (when one does):
// "bad configuration: IDEMQ_HEARTBEAT: idem: Heartbeat 4s: must be at
// most half of Lease 4s: ...". Other errors pass as they are.
func settingError(err error) error {
	bad, ok := errors.AsType[*idem.ConfigError](err)
	if !ok {
		return err
	}
	if name, ok := settingVars[[2]string{bad.Package, bad.Field}]; ok {
		return fmt.Errorf("bad configuration: %s: %w", name, err)
	}
	return fmt.Errorf("bad configuration: %w", err)
}
