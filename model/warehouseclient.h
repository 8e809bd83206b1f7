#pragma once
// (being written: the Qt adapter over the async warehouse layer)
