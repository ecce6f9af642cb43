#include "cli/cli.hpp"

int main(int argc, char** argv) {
    return conform::cli::conform_main(argc, argv);
}
