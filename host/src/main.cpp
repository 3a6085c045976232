#include "host_app.h"

#include <csignal>

int main(int argc, char** argv) {
    // Termination signals are taken synchronously by the main thread
    // (ServerApplication::waitForTerminationRequest); block them before any
    // thread starts so no other thread receives them. Plugins that start
    // subprocesses reset the mask in the child.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    envhost::HostApp app;
    return app.run(argc, argv);
}
