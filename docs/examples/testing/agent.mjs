// The agent under test in the examples: it asks the model about the weather, runs the tool the
// model asks for (wrapped by the tape session, so a replay serves its outcome instead of running it
// again), and returns the model's answer. Your own agent takes the session's `fetch` the same way.
import OpenAI from 'openai';

/** What the tool really does: here a lookup; in your agent, anything with side effects. */
async function getWeather({ city }) {
  return JSON.stringify({ city, forecast: 'sunny', celsius: 21 });
}

const TOOLS = [{
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather forecast for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}];

/** Ask about `city` through `session` (what withTape gives the test); the model's final answer. */
export async function weatherAgent(session, city = 'Paris') {
  const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? 'unused-in-replay', fetch: session.fetch, maxRetries: 0 });
  const weather = session.recordTool('get_weather', getWeather, { idempotent: true, mutating: false });
  const messages = [{ role: 'user', content: `Should I take an umbrella in ${city} today?` }];
  for (;;) {
    const completion = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools: TOOLS });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: await weather(JSON.parse(call.function.arguments)) });
    }
  }
}
