#include "warehouseclient.h"
