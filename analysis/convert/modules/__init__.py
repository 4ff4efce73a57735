"""Networks: Module -> Cell, layers, containers, typed receivers, parameter names and init, layer map."""
