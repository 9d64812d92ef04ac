// sqs-server.mjs starts fauxqs (the SQS emulator pinned in package.json) on
// a free port of 127.0.0.1 only, prints its endpoint on the first line of
// standard output ("http://127.0.0.1:PORT") and runs until its standard
// input closes or it is sent SIGTERM or SIGINT, so the process that started
// it cannot leave it behind.
//
//   node tools/sqs-server.mjs [PORT]
//
// fauxqs's own CLI listens on every interface; this listens on loopback.
import { buildApp } from "fauxqs";

const port = Number(process.argv[2] ?? 0);
const app = buildApp({ logger: false });
const address = await app.listen({ port, host: "127.0.0.1" });
process.stdout.write(address + "\n");

const stop = async () => {
	await app.close();
	process.exit(0);
};
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
