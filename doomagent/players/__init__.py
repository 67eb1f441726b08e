"""Players from outside doomagent: MCP clients (`mcp_server`) and people (`human`), each game a trial folder
like `doomagent run` writes, scored by the same report."""
