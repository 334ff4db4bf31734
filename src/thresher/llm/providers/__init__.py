"""Wire adapters: OpenAI Chat Completions, Anthropic Messages, Gemini generateContent."""
