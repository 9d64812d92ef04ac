// Package rie runs a Lambda bootstrap under the AWS Lambda Runtime
// Interface Emulator (aws-lambda-rie, which `make rie` installs into
// bin/) on free loopback ports, for the RIE test, the real-pipeline check
// and the start-up benchmark.
//
//	path, err := rie.Find(filepath.Join(root, rie.BinPath))
//	...
//	e, err := rie.Start(ctx, rie.Config{RIE: path, Bootstrap: bootstrap, Env: env, Output: &out})
//	...
//	defer e.Kill()
//	resp, err := http.Post(e.URL(), "application/json", event)
package rie
