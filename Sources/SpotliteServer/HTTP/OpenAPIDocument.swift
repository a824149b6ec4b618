/// The OpenAPI 3.1 description of the server's API, served at `/openapi.json`.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Spotlite",
    "version": "0.1.0",
    "description": "Search over a Spotlite index: the hits of `spotlite search --json`, records from the store, the index's status, health, metrics and update events. With an API key, every path but /, /health and /openapi.json needs `Authorization: Bearer KEY`."
  },
  "components": {
    "securitySchemes": { "apiKey": { "type": "http", "scheme": "bearer" } },
    "parameters": {
      "q": { "name": "q", "in": "query", "schema": { "type": "string" }, "description": "The query, in Xapian's query syntax (words, \"phrases\", AND/OR/NOT, +must/-mustnot, foo*, name:foo, section:utils, size:10..20)." },
      "entity": { "name": "entity", "in": "query", "schema": { "type": "array", "items": { "type": "string" } }, "style": "form", "explode": true, "description": "Only records of these entities." },
      "filter": { "name": "filter", "in": "query", "schema": { "type": "array", "items": { "type": "string" } }, "style": "form", "explode": true, "description": "FIELD:VALUE keyword filters (VALUE* for a prefix)." },
      "limit": { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 0, "maximum": 10000, "default": 10 } },
      "offset": { "name": "offset", "in": "query", "schema": { "type": "integer", "minimum": 0, "maximum": 1000000, "default": 0 } },
      "sort": { "name": "sort", "in": "query", "schema": { "type": "string", "default": "relevance" }, "description": "relevance, FIELD (ascending) or -FIELD (descending)." },
      "facet": { "name": "facet", "in": "query", "schema": { "type": "array", "items": { "type": "string" } }, "style": "form", "explode": true, "description": "Facet fields whose value counts to return." },
      "mode": { "name": "mode", "in": "query", "schema": { "type": "string", "enum": ["keyword", "semantic", "hybrid"], "default": "keyword" }, "description": "semantic and hybrid need embeddings." },
      "prefix": { "name": "prefix", "in": "query", "schema": { "type": "boolean", "default": false }, "description": "The last word of q also matches as the start of a word (search as you type)." },
      "allow_partial": { "name": "allow_partial", "in": "query", "schema": { "type": "boolean", "default": false }, "description": "Answer from the reachable shards when some cannot be reached." },
      "highlight": { "name": "highlight", "in": "query", "schema": { "type": "boolean", "default": false }, "description": "Snippets as HTML with the matched words in <mark>; plain text otherwise." }
    },
    "schemas": {
      "SearchBody": {
        "type": "object", "additionalProperties": false,
        "properties": {
          "q": { "type": "string" }, "entity": { "type": "array", "items": { "type": "string" } },
          "filter": { "type": "array", "items": { "type": "string" } }, "limit": { "type": "integer", "minimum": 0, "maximum": 10000 },
          "offset": { "type": "integer", "minimum": 0, "maximum": 1000000 }, "sort": { "type": "string" },
          "facet": { "type": "array", "items": { "type": "string" } }, "mode": { "type": "string", "enum": ["keyword", "semantic", "hybrid"] },
          "prefix": { "type": "boolean" }, "allow_partial": { "type": "boolean" }, "highlight": { "type": "boolean" }
        }
      },
      "Hit": {
        "type": "object", "required": ["entity", "key", "rank", "score", "percent", "fields", "snippet"],
        "properties": {
          "entity": { "type": "string" }, "key": { "type": ["string", "integer"] }, "rank": { "type": "integer" },
          "score": { "type": "number" }, "percent": { "type": "integer" }, "fields": { "type": "object" }, "snippet": { "type": "string" }
        }
      },
      "SearchResults": {
        "type": "object", "required": ["query", "total", "corrected", "hits", "facets"],
        "properties": {
          "query": { "type": "string" }, "total": { "type": "integer", "description": "Xapian's estimate." },
          "corrected": { "type": ["string", "null"] }, "corrected_filters": { "type": "array", "items": { "type": "string" } },
          "hits": { "type": "array", "items": { "$ref": "#/components/schemas/Hit" } },
          "facets": { "type": "object", "additionalProperties": { "type": "object", "additionalProperties": { "type": "integer" } } },
          "partial": { "type": "boolean" }, "unavailable_shards": { "type": "array", "items": { "type": "string" } }
        }
      },
      "Record": {
        "type": "object", "required": ["entity", "key", "fields"],
        "properties": { "entity": { "type": "string" }, "key": { "type": ["string", "integer"] }, "fields": { "type": "object" } }
      },
      "Problem": {
        "type": "object", "required": ["type", "title", "status", "detail"],
        "properties": { "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" }, "detail": { "type": "string", "description": "The sentence the command line prints for the same mistake." } }
      }
    },
    "responses": {
      "Problem": { "description": "What went wrong and what to do.", "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } }
    }
  },
  "security": [{}, { "apiKey": [] }],
  "paths": {
    "/search": {
      "get": {
        "summary": "Search the index",
        "parameters": [
          { "$ref": "#/components/parameters/q" }, { "$ref": "#/components/parameters/entity" }, { "$ref": "#/components/parameters/filter" },
          { "$ref": "#/components/parameters/limit" }, { "$ref": "#/components/parameters/offset" }, { "$ref": "#/components/parameters/sort" },
          { "$ref": "#/components/parameters/facet" }, { "$ref": "#/components/parameters/mode" }, { "$ref": "#/components/parameters/prefix" },
          { "$ref": "#/components/parameters/allow_partial" }, { "$ref": "#/components/parameters/highlight" }
        ],
        "responses": {
          "200": { "description": "The JSON of `spotlite search --json`.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SearchResults" } } } },
          "400": { "$ref": "#/components/responses/Problem" }, "401": { "$ref": "#/components/responses/Problem" },
          "503": { "$ref": "#/components/responses/Problem" }
        }
      },
      "post": {
        "summary": "Search the index (parameters in a JSON body of at most 64 KiB)",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SearchBody" } } } },
        "responses": {
          "200": { "description": "The JSON of `spotlite search --json`.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SearchResults" } } } },
          "400": { "$ref": "#/components/responses/Problem" }, "401": { "$ref": "#/components/responses/Problem" },
          "413": { "$ref": "#/components/responses/Problem" }, "503": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/records/{entity}/{key}": {
      "get": {
        "summary": "A record's row from the store",
        "parameters": [
          { "name": "entity", "in": "path", "required": true, "schema": { "type": "string" } },
          { "name": "key", "in": "path", "required": true, "schema": { "type": "string" } }
        ],
        "responses": {
          "200": { "description": "The record.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Record" } } } },
          "401": { "$ref": "#/components/responses/Problem" }, "404": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/status": {
      "get": {
        "summary": "The JSON of `spotlite index status --json`",
        "responses": { "200": { "description": "The index's status.", "content": { "application/json": { "schema": { "type": "object" } } } }, "401": { "$ref": "#/components/responses/Problem" } }
      }
    },
    "/health": {
      "get": {
        "summary": "Whether the index can be searched",
        "security": [{}],
        "responses": {
          "200": { "description": "{\"status\": \"ok\"}", "content": { "application/json": { "schema": { "type": "object" } } } },
          "503": { "description": "{\"status\": \"unavailable\", \"reason\": \"…\"}", "content": { "application/json": { "schema": { "type": "object" } } } }
        }
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus metrics: requests, latency histogram, index token and documents",
        "responses": { "200": { "description": "Prometheus text format.", "content": { "text/plain": { "schema": { "type": "string" } } } }, "401": { "$ref": "#/components/responses/Problem" } }
      }
    },
    "/events": {
      "get": {
        "summary": "Server-Sent Events: an `index` event (the update's summary as JSON) after each index update",
        "responses": { "200": { "description": "An event stream.", "content": { "text/event-stream": { "schema": { "type": "string" } } } }, "401": { "$ref": "#/components/responses/Problem" } }
      }
    },
    "/openapi.json": {
      "get": { "summary": "This document", "security": [{}], "responses": { "200": { "description": "OpenAPI 3.1.", "content": { "application/json": { "schema": { "type": "object" } } } } } }
    },
    "/": {
      "get": { "summary": "The search page", "security": [{}], "responses": { "200": { "description": "HTML.", "content": { "text/html": { "schema": { "type": "string" } } } } } }
    }
  }
}

"""#
}
