// Package deploylocal deploys the stack cdk.json describes to a local
// CloudFormation, with the pinned CDK CLI, and runs what was deployed: the
// check behind `make deploy-local`.
//
// Run starts moto_server on a free loopback port (its host named localhost:
// moto reads an IP host as an S3 bucket name), synthesizes the stack with
// the repository's cdk.json, runs the real `cdk bootstrap` and `cdk deploy`
// against it, and checks the deployed resources from moto's APIs: the
// table's key and deletion protection, the queue's visibility timeout and
// redrive policy, the event source mapping (batch size, the queue,
// ReportBatchItemFailures), the function's settings and environment, its
// role's grants, and the result bucket (checkBucket). It then downloads the function's asset from moto's S3,
// checks that it holds bootstrap alone, and runs that bootstrap under the
// Lambda Runtime Interface Emulator (through qemu-aarch64-static when it is
// built for arm64 and the machine is not) with the deployed function's
// environment, only the AWS endpoints swapped for moto's through
// AWS_ENDPOINT_URL_*, fed from the deployed queue by a local event source
// mapping (loadtest.ESM) with the deployed batch size and window. It
// sends requests with duplicates and counts the calls a fake model
// provider receives: one per key. One key (LargeKey) is answered with
// 512 KiB of prose, whose result the worker keeps, gzipped, in the deployed
// bucket: Run finds its record's pointer in the table and the object it
// names under IDEMQ_BLOB_PREFIX (checkLarge), then sends a late duplicate,
// which must be acknowledged with no second provider call, after reading
// the object whole (the worker's S3 requests pass through s3Log, which
// notes them). Then `cdk destroy` must remove the stack,
// the queue and the function, and keep the table, the dead-letter queue and
// the result bucket.
//
// Last, the same moto migrates the example app (ExampleDir: a team's own
// queue and Go function, fed by its own SqsEventSource, with idemq
// attached by idemqcdk.NewAttachment), with the CLI run in its folder and
// its cdk.json: deployed first as it was before idemq (-c
// withoutIdemq=true), with orders sent and some held in flight, then with
// idemq attached (synthesized with --strict) while more orders arrive. The
// team's mapping must have been updated in place: the same logical id in
// both templates, the same physical id (UUID) before and after, one
// mapping from the queue to the function, ReportBatchItemFailures on. The
// deployment is then checked as the stack's is (the function's
// environment, idemq's grants and the team's own on the team's role, the
// event source mapping, the alarms in the template); its function runs
// under the emulator with the deployed environment on every order, sent
// before, during and after the deploy, and on each again twice: each
// order's work is done once (the function's "order confirmed" lines), the
// handler's EMF counts say the other copies were replayed, and each
// order's record in the deployed table is COMPLETED. `cdk destroy` must
// keep the table.
//
// # moto's gaps, worked around here, not in the template
//
//   - moto's CloudFormation has no AWS::DynamoDB::GlobalTable: the deployed
//     copy of the template (and only it) declares the table as an
//     AWS::DynamoDB::Table with the same key, billing, TTL, point-in-time
//     recovery and deletion protection (see patchForMoto). Both types
//     answer Ref with the table's name and Fn::GetAtt Arn with its ARN, all
//     the rest of the stack uses.
//   - moto reads TTL as disabled, reports every function as x86_64, skips
//     alarms and queue policies and returns no stack outputs: those are
//     checked in the synthesized template (infra/'s tests check them in
//     depth). As the alarms are skipped, the deployed copy of the
//     template spells out the alarm ARNs the dashboard refers to.
//   - moto cannot invoke a function, yet its copy of the event source
//     mapping receives each message as it is sent, fails to invoke, and so
//     spends the message's receives until it is dead-lettered. The harness
//     disables that mapping once it has checked it, and runs the bootstrap
//     itself, fed by a local mapping.
//   - moto refuses neither a second mapping from one queue to one function
//     (Lambda does: its check compares with a string literal) nor a
//     change of a resource's type; infra/idemqcdk's synth checks and
//     upgrade tests stand for those. An update through a change set fails
//     on moto, so the example's second deploy updates the stack directly
//     (--method=direct), and the BootstrapVersion parameter, which moto
//     cannot keep for an update, is left out of the deployed copy.
//
// The provider's URL is the one stack setting given for the run, as
// idemq:providerUrl, so that the deployed environment is used unchanged.
package deploylocal
