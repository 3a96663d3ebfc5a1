#include "ksched/app.h"

int main(int argc, char** argv) { return ksched::app::Run(argc, argv); }
