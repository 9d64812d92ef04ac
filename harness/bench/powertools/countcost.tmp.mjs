// How much CPU the bench's counting middleware (count.mjs) adds to a
// DynamoDB request of the Node SDK, with a handler that answers at once.
import { Readable } from 'node:stream';
import { DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { countRequests, newCounts } from './count.mjs';

const handler = {
  handle: async () => ({
    response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{"ConsumedCapacity":{"TableName":"t","CapacityUnits":1}}')]) },
  }),
  updateHttpClientConfig() {}, httpHandlerConfigs() { return {}; },
};
function client(counted) {
  const c = new DynamoDBClient({ endpoint: 'http://127.0.0.1:1', region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, requestHandler: handler });
  if (counted) countRequests(c, newCounts());
  return c;
}
async function round(c, n) {
  const ps = [];
  for (let i = 0; i < n; i++) {
    ps.push((async () => {
      await c.send(new PutItemCommand({ TableName: 't', Item: { id: { S: 'k' + i }, status: { S: 'INPROGRESS' } }, ConditionExpression: 'attribute_not_exists(id)' }));
      await c.send(new UpdateItemCommand({ TableName: 't', Key: { id: { S: 'k' + i } }, UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': { S: 'COMPLETED' } } }));
    })());
  }
  await Promise.all(ps);
}
const plain = client(false), counted = client(true);
for (let w = 0; w < 20; w++) { await round(plain, 100); await round(counted, 100); }
const res = { plain: [], counted: [] };
for (let r = 0; r < 10; r++) {
  for (const [name, c] of (r % 2 ? [['plain', plain], ['counted', counted]] : [['counted', counted], ['plain', plain]])) {
    globalThis.gc?.();
    const c0 = process.cpuUsage();
    for (let b = 0; b < 10; b++) await round(c, 100);
    const d = process.cpuUsage(c0);
    res[name].push((d.user + d.system) / 1000);
  }
}
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
console.log(JSON.stringify({ plainUsPerRecord: med(res.plain), countedUsPerRecord: med(res.counted), plain: res.plain, counted: res.counted }));
