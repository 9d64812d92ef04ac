package idemqcdk

import (
	"encoding/json"
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
)

// handlerEnv is the environment idemq's handler is configured by: the
// table, the record expiry, the queue's settings (which the function
// checks its expiry and lease against at start-up), the EMF namespace,
// who a request is (requestEnv), the back-off, and the result bucket when
// there is one.
func handlerEnv(table awsdynamodb.ITable, bucket *ResultBucket, s settings) map[string]*string {
	queueJSON, err := json.Marshal(s.queue())
	if err != nil { // unreachable: durations and numbers
		panic(err)
	}
	env := map[string]*string{
		envTable:        table.TableName(),
		envRecordExpiry: jsii.String(s.expiry.String()),
		envClockSkew:    jsii.String(idem.DefaultClockSkew.String()),
		envQueue:        jsii.String(string(queueJSON)),
		envEMFNamespace: jsii.String(metricNamespace),
		envBackoff:      jsii.String(strconv.FormatBool(s.backoff)),
	}
	if s.stream != nil { // no queue: the stream's settings sized the expiry
		delete(env, envQueue)
	}
	for k, v := range requestEnv(s.request, idemqenv.Worker) {
		env[k] = jsii.String(v)
	}
	if len(s.replicas) > 0 {
		env[envDynamoDBStrong] = jsii.String("true")
	}
	if bucket != nil {
		env[envBlobBucket] = bucket.Bucket.BucketName()
		env[envBlobPrefix] = jsii.String(bucket.Prefix)
	}
	return env
}
