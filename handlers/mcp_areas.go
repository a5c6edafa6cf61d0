package handlers

// mcpAreaTools are the tools whose use cases live in other areas (Stack Signal, Vault Watch,
// portfolio), added as those areas land.
func (h *Handlers) mcpAreaTools() []MCPTool { return nil }
